import Configuration

/// The environment variable of each configuration key: `SIGNALBOX_` and the key's last part in upper snake case for the `delivery`, `quotas` and
/// `connections` sections (`delivery.maxInFlight` → `SIGNALBOX_MAX_IN_FLIGHT`), the whole key for the others
/// (`tls.certificate` → `SIGNALBOX_TLS_CERTIFICATE`), with three exceptions below.
public enum ConfigEnvironment {
    private static let exceptions = [
        "database": "SIGNALBOX_DATABASE_URL", "log.level": "LOG_LEVEL", "log.format": "LOG_FORMAT",
    ]
    private static let flattenedSections: Set<String> = ["delivery", "quotas", "connections"]

    /// Variables whose values are secrets, redacted wherever the provider is printed.
    public static let secretVariables: Set<String> = [
        "SIGNALBOX_ADMIN_KEY", "SIGNALBOX_MASTER_KEY", "SIGNALBOX_METRICS_KEY", "SIGNALBOX_DATABASE_URL", "SIGNALBOX_APNS_PROXY",
    ]

    /// The environment variable that sets the dotted `key`.
    public static func variable(for key: String) -> String {
        if let name = exceptions[key] { return name }
        var parts = key.split(separator: ".").map(String.init)
        if parts.count > 1, flattenedSections.contains(parts[0]) { parts.removeFirst() }
        return (["SIGNALBOX"] + parts.map(upperSnake)).joined(separator: "_")
    }

    /// A provider reading each key from its variable in `environment`; an empty variable counts as unset.
    public static func provider(environment: [String: String]) -> some ConfigProvider {
        EnvironmentVariablesProvider(
            environmentVariables: environment.filter { !$0.value.isEmpty }, secretsSpecifier: .specific(secretVariables)
        ).mapKeys { key in
            AbsoluteConfigKey([variable(for: key.components.joined(separator: "."))], context: key.context)
        }
    }

    private static func upperSnake(_ part: String) -> String {
        var result = ""
        for character in part {
            if character.isUppercase, let last = result.last, last.isLowercase || last.isNumber { result.append("_") }
            result.append(character)
        }
        return result.uppercased()
    }
}
