import Foundation
import SignalboxStoreTestSupport
import SignalboxTestSupport
import Testing

/// Two `signalbox serve` processes on one PostgreSQL database, as behind a load balancer: a dashboard session
/// started on one instance works on the other, a sign-out on either ends it on both, and a restart keeps it.
@Suite struct DashboardInstancesTests {
    @Test(arguments: Backend.shared) func aSessionStartedOnOneInstanceWorksOnTheOtherUntilSignedOutAnywhere(_ backend: Backend) async throws {
        let database = try await TestDatabases.fresh()
        let directory = try makeTemporaryDirectory("dashboard-instances")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func start(_ name: String) async throws -> ServerProcess {
            try await ServerProcess.start(
                dataDirectory: directory + "/" + name, arguments: ["--database", database],
                environment: ["SIGNALBOX_MASTER_KEY": Data((0..<32).map { UInt8($0) }).base64EncodedString()]
            )
        }
        var first = try await start("a")
        defer { first.process.kill(SIGTERM) }
        let second = try await start("b")
        defer { second.process.kill(SIGTERM) }

        var browser = CookieBrowser()
        let signedIn = try await browser.signIn(port: first.port, key: ServerProcess.adminKey)
        #expect(signedIn.status == 303 && signedIn.location == "/dashboard", "\(signedIn.head)")
        #expect(try await browser.get(port: first.port, "/dashboard/apps").status == 200)
        let onSecond = try await browser.get(port: second.port, "/dashboard/apps")
        #expect(onSecond.status == 200, "the session started on A is known to B: \(onSecond.head)")

        // Sign out on B: A refuses the cookie too.
        let cookie = try #require(browser.cookies["signalbox_session"])
        let csrf = try #require(onSecond.csrf)
        let signedOut = try await browser.post(port: second.port, "/dashboard/logout", form: ["csrf": csrf])
        #expect(signedOut.status == 303 && signedOut.location == "/dashboard/login", "\(signedOut.head)")
        browser.cookies["signalbox_session"] = cookie
        let refused = try await browser.get(port: first.port, "/dashboard/apps")
        #expect(refused.status == 303 && refused.location == "/dashboard/login", "A refuses a session ended on B: \(refused.head)")

        // A restart keeps a session.
        _ = try await browser.signIn(port: second.port, key: ServerProcess.adminKey)
        first.process.kill(SIGTERM)
        first = try await start("a")
        #expect(try await browser.get(port: first.port, "/dashboard/apps").status == 200, "the restarted instance knows the session")
    }
}

/// Just enough of a browser over plain HTTP/1.1 (one connection per request): keeps cookies, follows nothing.
struct CookieBrowser {
    var cookies: [String: String] = [:]

    struct Page {
        let status: Int
        let head: String
        let body: String
        var location: String? { header("location") }
        /// The first form's CSRF token on the page.
        var csrf: String? {
            body.range(of: #"name="csrf" value=""#).map { String(body[$0.upperBound...].prefix { $0 != "\"" }) }
        }

        func header(_ name: String) -> String? { headers(name).first }

        func headers(_ name: String) -> [String] {
            head.split(separator: "\r\n").compactMap { line in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == name else { return nil }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
    }

    mutating func signIn(port: Int, key: String) async throws -> Page {
        let login = try await get(port: port, "/dashboard/login")
        return try await post(port: port, "/dashboard/login", form: ["key": key, "csrf": try #require(login.csrf)])
    }

    mutating func get(port: Int, _ path: String) async throws -> Page { try await send(port: port, "GET", path, body: nil) }

    mutating func post(port: Int, _ path: String, form: [String: String]) async throws -> Page {
        let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        return try await send(port: port, "POST", path, body: body)
    }

    private mutating func send(port: Int, _ method: String, _ path: String, body: String?) async throws -> Page {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if !cookies.isEmpty { request += "Cookie: " + cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") + "\r\n" }
        if let body {
            request += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        } else {
            request += "\r\n"
        }
        let connection = try RawConnection(port: port)
        connection.send(request)
        let reply = await connection.read(timeout: .seconds(30))
        guard let split = reply.text.range(of: "\r\n\r\n") else { throw ChildProcessError(message: "no HTTP answer: \(reply.text)") }
        let head = String(reply.text[..<split.lowerBound])
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let page = Page(status: status, head: head, body: String(reply.text[split.upperBound...]))
        for header in page.headers("set-cookie") {
            let pair = header.prefix { $0 != ";" }.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            cookies[String(pair[0])] = pair[1].isEmpty ? nil : String(pair[1])
        }
        return page
    }
}
