import Configuration
import Synchronization

/// An `AccessReporter` that remembers every key read and every value that could not be read, so that a bad
/// value stops the start naming its key instead of silently falling back to the default (swift-configuration's
/// reads with a default only report a conversion error to the access reporter).
public final class ConfigProblems: AccessReporter {
    private struct State {
        var keysRead: Set<String> = []
        var problems: [String] = []
    }

    private let state = Mutex(State())
    private let environmentName: @Sendable (String) -> String?

    /// - Parameter environmentName: the environment variable of a key, named in messages beside the key.
    public init(environmentName: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.environmentName = environmentName
    }

    public func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        let failed = event.conversionError != nil || event.providerResults.contains {
            if case .failure = $0.result { true } else { false }
        }
        state.withLock { state in
            state.keysRead.insert(key)
            // The value itself is never quoted: it may be a secret.
            if failed { state.problems.append("\(describe(key)): must be \(Self.describe(event.metadata.valueType))") }
        }
    }

    /// Every key read so far (dotted).
    public var keysRead: Set<String> { state.withLock { $0.keysRead } }

    /// Throws for the first value that could not be read as its type.
    public func check() throws(ConfigurationError) {
        if let first = state.withLock({ $0.problems.first }) { throw ConfigurationError("bad configuration value: \(first)") }
    }

    /// `key` with its environment variable, as messages name it.
    public func describe(_ key: String) -> String {
        environmentName(key).map { "\(key) (\($0))" } ?? key
    }

    private static func describe(_ type: ConfigType) -> String {
        switch type {
        case .int: "an integer"
        case .double: "a number"
        case .bool: "true or false"
        case .string: "a string"
        default: "a \(type.rawValue)"
        }
    }
}
