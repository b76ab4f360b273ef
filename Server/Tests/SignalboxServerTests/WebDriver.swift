import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A W3C WebDriver client over plain HTTP, enough to drive headless chromium through chromedriver:
/// navigate, find, type, click, read text and cookies, take screenshots.
struct WebDriver: Sendable {
    let base: String
    let session: String

    /// The W3C key of an element reference in WebDriver answers.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Opens a headless chromium session with `binary` and a window of `width` × `height`.
    static func start(driver: String, binary: String, width: Int, height: Int) async throws -> WebDriver {
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    // An element looked for right after a click may belong to the page still loading (seen under
                    // the parallel suite's load): lookups wait up to 10 s for it.
                    "timeouts": ["implicit": 10_000],
                    "goog:chromeOptions": [
                        "binary": binary,
                        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(width),\(height)",
                                 "--hide-scrollbars", "--force-device-scale-factor=1"],
                    ] as [String: Any],
                ] as [String: Any],
            ]
        ]
        let value = try await call(driver + "/session", "POST", capabilities)
        guard let session = (value as? [String: Any])?["sessionId"] as? String else { throw Failure(description: "no session in \(String(describing: value))") }
        return WebDriver(base: driver, session: session)
    }

    func quit() async {
        _ = try? await Self.call("\(base)/session/\(session)", "DELETE", nil)
    }

    func go(_ url: String) async throws { _ = try await command("url", ["url": url]) }

    var url: String { get async throws { try await command("url", method: "GET") as? String ?? "" } }

    func title() async throws -> String { try await command("title", method: "GET") as? String ?? "" }

    /// The first element matching a CSS selector. - Throws: when none matches.
    func find(_ selector: String) async throws -> String {
        let value = try await command("element", ["using": "css selector", "value": selector])
        guard let id = (value as? [String: Any])?[Self.elementKey] as? String else { throw Failure(description: "no element \(selector)") }
        return id
    }

    func findAll(_ selector: String) async throws -> [String] {
        let value = try await command("elements", ["using": "css selector", "value": selector]) as? [[String: Any]] ?? []
        return value.compactMap { $0[Self.elementKey] as? String }
    }

    func type(_ selector: String, _ text: String) async throws {
        let element = try await find(selector)
        _ = try await command("element/\(element)/clear", [:])
        _ = try await command("element/\(element)/value", ["text": text])
    }

    /// Attaches a local file to an `<input type=file>`.
    func attach(_ selector: String, file path: String) async throws {
        _ = try await command("element/\(try await find(selector))/value", ["text": path])
    }

    func select(_ selector: String, value: String) async throws {
        _ = try await command("element/\(try await find("\(selector) option[value='\(value)']"))/click", [:])
    }

    /// Clicks a checkbox (or anything that opens no page).
    func tick(_ selector: String) async throws {
        _ = try await command("element/\(try await find(selector))/click", [:])
    }

    /// Clicks a link or submit button and waits for the page it opens: the driver may answer before a loaded
    /// machine starts the navigation, and the next step would read the old page.
    func click(_ selector: String) async throws {
        let page = try await find("html")
        _ = try await command("element/\(try await find(selector))/click", [:])
        for _ in 0..<200 {
            if (try? await find("html")) ?? page != page { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "clicking \(selector) opened no page within 10 s")
    }

    func text(_ selector: String) async throws -> String {
        try await command("element/\(try await find(selector))/text", method: "GET") as? String ?? ""
    }

    /// The page's HTML.
    func source() async throws -> String { try await command("source", method: "GET") as? String ?? "" }

    /// The page's visible text.
    func bodyText() async throws -> String { try await text("body") }

    func cookies() async throws -> [[String: Any]] { try await command("cookie", method: "GET") as? [[String: Any]] ?? [] }

    func resize(width: Int, height: Int) async throws { _ = try await command("window/rect", ["width": width, "height": height]) }

    /// Saves a PNG of the viewport.
    func screenshot(to path: String) async throws {
        guard let base64 = try await command("screenshot", method: "GET") as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    private func command(_ path: String, _ body: [String: Any]? = nil, method: String = "POST") async throws -> Any? {
        try await Self.call("\(base)/session/\(session)/\(path)", method, method == "GET" ? nil : (body ?? [:]))
    }

    /// One WebDriver request; answers `{"value": …}`, an error as `{"value": {"error", "message"}}`.
    private static func call(_ url: String, _ method: String, _ body: [String: Any]?) async throws -> Any? {
        let parsed = URL(string: url)!
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let (status, data) = try RawHTTP.exchange(port: parsed.port ?? 80, method: method, path: parsed.path, body: payload)
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        let value = json?["value"]
        if let error = value as? [String: Any], let code = error["error"] as? String {
            throw Failure(description: "WebDriver \(method) \(url): \(code): \(error["message"] as? String ?? "")")
        }
        guard status == 200 else { throw Failure(description: "WebDriver \(method) \(url): HTTP \(status)") }
        return value is NSNull ? nil : value
    }
}

/// HTTP/1.1 over a blocking loopback socket. FoundationNetworking's URLSession fails on chromedriver's answers
/// on Linux ("Failed writing header"), so the WebDriver client speaks HTTP itself.
enum RawHTTP {
    static func exchange(port: Int, method: String, path: String, body: Data) throws -> (status: Int, body: Data) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WebDriver.Failure(description: "socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw WebDriver.Failure(description: "cannot connect to 127.0.0.1:\(port)") }
        var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n".utf8)
        if method != "GET" { request += Data("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8) }
        request += Data("\r\n".utf8) + (method == "GET" ? Data() : body)
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, 0) }
            guard n > 0 else { throw WebDriver.Failure(description: "send failed") }
            sent += n
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        // chromedriver keeps the connection open: stop at Content-Length (or the last chunk) instead of EOF.
        while !complete(response) {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { throw WebDriver.Failure(description: "no HTTP answer") }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var content = Data(response[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { content = dechunk(content) }
        return (status, content)
    }

    private static func complete(_ response: Data) -> Bool {
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self).lowercased()
        let received = response.distance(from: split.upperBound, to: response.endIndex)
        if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
            return received >= length
        }
        if head.contains("transfer-encoding: chunked") { return response.suffix(5) == Data("0\r\n\r\n".utf8) }
        return false
    }

    private static func dechunk(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let line = rest.range(of: Data("\r\n".utf8)) {
            guard let size = Int(String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16), size > 0 else { break }
            let start = line.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let end = rest.index(start, offsetBy: size)
            result.append(rest[start..<end])
            rest = rest[(rest.index(end, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        return result
    }
}
