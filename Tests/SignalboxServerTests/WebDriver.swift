import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A W3C WebDriver client over plain HTTP (URLSession), enough to drive headless chromium through chromedriver:
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

    func click(_ selector: String) async throws { _ = try await command("element/\(try await find(selector))/click", [:]) }

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
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.timeoutInterval = 60
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        let value = json?["value"]
        if let error = value as? [String: Any], let code = error["error"] as? String {
            throw Failure(description: "WebDriver \(method) \(url): \(code): \(error["message"] as? String ?? "")")
        }
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw Failure(description: "WebDriver \(method) \(url): HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
        return value is NSNull ? nil : value
    }
}
