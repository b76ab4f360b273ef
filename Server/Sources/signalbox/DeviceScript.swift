import ArgumentParser
import Foundation
import SignalboxAPI

/// A `simulate-device` scenario: one step per line, `#` starts a comment, `@name` picks the installation.
///
///     installation user=u1 channels=home:42
///     controls com.example.garage.door{door=north}:d0e50001
///     widgets c0ffee00 Caffeine/systemSmall
///     file-provider f11e0001 acct-7 photos:replicated
///     open acct-7 folder-123          close acct-7 folder-123          extension-exits     token-invalidated
///     reconcile     sign-out
///     offline     online     sync     wait 3     say text     event {"target":…,"audience":…}
struct DeviceStep: Sendable {
    enum Action: Sendable {
        case installation(InstallationRequest)
        case widgets(WidgetsRequest)
        case controls(ControlsRequest)
        case fileProvider(FileProviderRequest)
        case open(domain: String, container: String)
        case close(domain: String, container: String)
        case extensionExits
        /// PushKit invalidates the File Provider token.
        case tokenInvalidated
        /// The app comes to the foreground: `SignalboxApple.reconcile()`.
        case reconcile
        case signOut
        case offline, online, sync
        case wait(seconds: Double)
        case say(String)
        case event(String)
    }

    var installation: String
    var action: Action

    static func parse(_ text: String, defaultInstallation: String) throws -> [DeviceStep] {
        var steps: [DeviceStep] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || line.isEmpty { continue }
            var installation = defaultInstallation
            if line.hasPrefix("@") {
                let name = line.prefix { !$0.isWhitespace }
                installation = String(name.dropFirst())
                line = line.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
            }
            do {
                steps.append(DeviceStep(installation: installation, action: try action(line)))
            } catch {
                throw ValidationError("script line \(number + 1): \(error)")
            }
        }
        return steps
    }

    private static func action(_ line: String) throws -> Action {
        let verb = String(line.prefix { !$0.isWhitespace })
        let rest = line.dropFirst(verb.count).trimmingCharacters(in: .whitespaces)
        let words = rest.split(separator: " ").map(String.init)
        switch verb {
        case "installation":
            var fields: [String: String] = [:]
            for word in words {
                let pair = word.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { throw ValidationError("expected key=value, got \(word)") }
                fields[pair[0]] = pair[1]
            }
            let channels = fields["channels"].map { $0.split(separator: ",").map(String.init) } ?? []
            return .installation(InstallationRequest(userId: fields["user"], channels: channels, environment: fields["environment"] ?? "sandbox"))
        case "widgets":
            guard let token = words.first else { throw ValidationError("widgets TOKEN KIND/FAMILY…") }
            let widgets = try words.dropFirst().map { word -> Widget in
                let (name, configuration) = try configured(word)
                let parts = name.split(separator: "/").map(String.init)
                guard parts.count == 2 else { throw ValidationError("expected KIND/FAMILY, got \(word)") }
                return Widget(kind: parts[0], family: parts[1], configuration: configuration)
            }
            return .widgets(WidgetsRequest(pushToken: token, widgets: widgets))
        case "controls":
            let controls = try words.map { word -> Control in
                guard let colon = word.lastIndex(of: ":") else { throw ValidationError("expected KIND{…}:TOKEN, got \(word)") }
                let (kind, configuration) = try configured(String(word[..<colon]))
                return Control(kind: kind, configuration: configuration, pushToken: String(word[word.index(after: colon)...]))
            }
            return .controls(ControlsRequest(controls: controls))
        case "file-provider":
            guard let token = words.first else { throw ValidationError("file-provider TOKEN DOMAIN[:replicated]…") }
            let domains = words.dropFirst().map { word in
                FileProviderDomain(id: word.replacingOccurrences(of: ":replicated", with: ""), replicated: word.hasSuffix(":replicated"))
            }
            return .fileProvider(FileProviderRequest(pushToken: token, domains: domains))
        case "open", "close":
            guard words.count == 2 else { throw ValidationError("\(verb) DOMAIN CONTAINER") }
            let container = words[1] == "working-set" ? "NSFileProviderWorkingSetContainerItemIdentifier" : words[1]
            return verb == "open" ? .open(domain: words[0], container: container) : .close(domain: words[0], container: container)
        case "extension-exits": return .extensionExits
        case "token-invalidated": return .tokenInvalidated
        case "reconcile": return .reconcile
        case "sign-out": return .signOut
        case "offline": return .offline
        case "online": return .online
        case "sync": return .sync
        case "wait":
            guard let seconds = Double(rest), seconds >= 0 else { throw ValidationError("wait SECONDS") }
            return .wait(seconds: seconds)
        case "say": return .say(rest)
        case "event": return .event(rest)
        default: throw ValidationError("unknown step \(verb)")
        }
    }

    /// `name{key=value,…}` → the name and its configuration (numbers stay strings unless they parse).
    private static func configured(_ word: String) throws -> (String, JSONValue) {
        guard let brace = word.firstIndex(of: "{") else { return (word, .object([:])) }
        guard word.hasSuffix("}") else { throw ValidationError("unclosed { in \(word)") }
        let inner = word[word.index(after: brace)..<word.index(before: word.endIndex)]
        var object: [String: JSONValue] = [:]
        for pair in inner.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("expected key=value in \(word)") }
            object[parts[0]] = Double(parts[1]).map(JSONValue.number) ?? .string(parts[1])
        }
        return (String(word[..<brace]), .object(object))
    }
}
