import Foundation
import SignalboxModel

/// Checks what a client sends about webhook endpoints.
enum WebhookValidation {
    static let maxURLBytes = 2048

    /// An absolute `http` or `https` URL with a host and no credentials (they would be stored and shown in clear).
    static func url(_ text: String) throws -> String {
        func invalid(_ message: String) -> ValidationError { ValidationError(field: "url", message) }
        guard !text.isEmpty, text.utf8.count <= maxURLBytes else { throw invalid("must be a URL of 1 to \(maxURLBytes) bytes") }
        guard !text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }),
              let components = URLComponents(string: text), let scheme = components.scheme?.lowercased()
        else { throw invalid("must be an absolute http:// or https:// URL") }
        guard scheme == "http" || scheme == "https" else { throw invalid("must use http or https") }
        guard let host = components.host, !host.isEmpty else { throw invalid("must name a host") }
        guard components.user == nil, components.password == nil else {
            throw invalid("must not hold credentials; verify deliveries by their Signalbox-Signature instead")
        }
        guard components.fragment == nil else { throw invalid("must not have a fragment") }
        if let port = components.port, !(1...65_535).contains(port) { throw invalid("has a port outside 1…65535") }
        return text
    }

    /// Known lifecycle event types, each once; empty: every type.
    static func eventTypes(_ names: [String]) throws -> [LifecycleEvent.Kind] {
        var kinds: [LifecycleEvent.Kind] = []
        for name in names {
            guard let kind = LifecycleEvent.Kind(rawValue: name), kind != .test else {
                let known = LifecycleEvent.Kind.subscribable.map(\.rawValue).joined(separator: ", ")
                throw ValidationError(field: "eventTypes", "\(name.prefix(64)) is not a lifecycle event type (\(known))")
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }
}
