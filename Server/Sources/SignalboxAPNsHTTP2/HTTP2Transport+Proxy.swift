import Foundation

extension HTTP2Transport {
    /// An HTTP proxy APNs is reached through with `CONNECT` (networks whose only way out is a proxy).
    ///
    /// Its credentials are a secret: `description`, `debugDescription` and reflection show only the host and port,
    /// so printing a configuration or an error never shows them.
    public struct Proxy: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        public var host: String
        public var port: Int
        /// `Proxy-Authorization` value (`Basic base64(user:password)`), absent without credentials.
        let authorization: String?

        public init(host: String, port: Int, username: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            if let username {
                authorization = "Basic " + Data("\(username):\(password ?? "")".utf8).base64EncodedString()
            } else {
                authorization = nil
            }
        }

        /// Whether credentials are sent to the proxy.
        public var hasCredentials: Bool { authorization != nil }

        /// Reads `http://[user:password@]host[:port]` (percent-escapes allowed in user and password; port 80 when
        /// absent); throws `ProxyURLError` naming what is wrong, never echoing the credentials.
        public static func parse(_ url: String) throws(ProxyURLError) -> Proxy {
            guard let components = URLComponents(string: url), components.scheme?.lowercased() == "http" else {
                throw ProxyURLError("must be an http:// URL such as http://127.0.0.1:3128 (https proxies are not supported)")
            }
            guard let host = components.host, !host.isEmpty else { throw ProxyURLError("names no host") }
            let port = components.port ?? 80
            guard (1...65_535).contains(port) else { throw ProxyURLError("port must be from 1 to 65535") }
            guard components.path.isEmpty || components.path == "/", components.query == nil else {
                throw ProxyURLError("must name only the proxy (no path or query)")
            }
            let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            return Proxy(host: bareHost, port: port, username: components.user, password: components.password)
        }

        public var description: String { "\(host):\(port)" + (hasCredentials ? " (with credentials)" : "") }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["host": host, "port": port, "hasCredentials": hasCredentials]) }
    }

    /// A proxy URL that cannot be used; the message never contains the URL's credentials.
    public struct ProxyURLError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
