import SignalboxAPI

/// A request field that breaks a rule; `field` is a JSON path such as `controls[2].pushToken`.
public struct ValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var message: String

    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field): \(message)" }
}

/// The bounds every registration respects.
public enum Limits {
    public static let identifierLength = 128
    public static let kindLength = 256
    public static let tokenHexLength = 400
    public static let channels = 100
    public static let widgets = 64
    public static let controls = 64
    public static let domains = 32
    public static let configurationBytes = 2048
    public static let configurationDepth = 4
    public static let leaseSeconds = 1...(30 * 24 * 3600)
    /// How far ahead an app may let device JWTs expire.
    public static let deviceTokenLifetimeSeconds = 60...(30 * 24 * 3600)
    /// How long a rotated device secret may stay valid.
    public static let secretGraceSeconds = 0...(30 * 24 * 3600)
}

/// Checks and normalises requests into domain values; nothing unchecked reaches storage.
public enum Validate {
    /// An id, user id, channel, family or domain: 1…128 printable characters.
    public static func identifier(_ value: String, field: String, limit: Int = Limits.identifierLength) throws(ValidationError) {
        guard !value.isEmpty else { throw ValidationError(field: field, "must not be empty") }
        // Unicode scalars, as JSON Schema's maxLength counts (a letter with 200 combining marks is one Character).
        guard value.unicodeScalars.count <= limit else { throw ValidationError(field: field, "must be at most \(limit) characters") }
        guard value.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) else {
            throw ValidationError(field: field, "must not contain control characters")
        }
    }

    /// A device token: even-length hex, at most 400 digits; returned lower-cased.
    public static func token(_ value: String, field: String) throws(ValidationError) -> String {
        guard !value.isEmpty, value.count % 2 == 0, value.count <= Limits.tokenHexLength,
            value.utf8.allSatisfy({ $0.isHexDigit })
        else {
            throw ValidationError(field: field, "must be an even number of hex digits (at most \(Limits.tokenHexLength))")
        }
        return value.lowercased()
    }

    public static func environment(_ value: String, field: String) throws(ValidationError) -> Environment {
        guard let environment = Environment(rawValue: value) else {
            throw ValidationError(field: field, "must be \"sandbox\" or \"production\"")
        }
        return environment
    }

    /// A configuration: a JSON object, small and shallow.
    public static func configuration(_ value: JSONValue, field: String) throws(ValidationError) {
        guard case .object = value else { throw ValidationError(field: field, "must be a JSON object") }
        guard value.depth <= Limits.configurationDepth else {
            throw ValidationError(field: field, "must nest at most \(Limits.configurationDepth) levels")
        }
        guard value.canonicalJSON.utf8.count <= Limits.configurationBytes else {
            throw ValidationError(field: field, "must be at most \(Limits.configurationBytes) bytes of JSON")
        }
    }

    public static func installation(_ request: InstallationRequest, id: String, defaultEnvironment: Environment) throws(ValidationError) -> Installation {
        try identifier(id, field: "installationId")
        if let userId = request.userId { try identifier(userId, field: "userId") }
        guard request.channels.count <= Limits.channels else {
            throw ValidationError(field: "channels", "at most \(Limits.channels) channels")
        }
        for (index, channel) in request.channels.enumerated() { try identifier(channel, field: "channels[\(index)]") }
        var chosen = defaultEnvironment
        if let given = request.environment { chosen = try environment(given, field: "environment") }
        return Installation(id: id, userId: request.userId, channels: Array(Set(request.channels)).sorted(), environment: chosen)
    }

    public static func widgets(_ request: WidgetsRequest) throws(ValidationError) -> WidgetRegistration {
        let token = try token(request.pushToken, field: "pushToken")
        guard request.widgets.count <= Limits.widgets else { throw ValidationError(field: "widgets", "at most \(Limits.widgets) widgets") }
        for (index, widget) in request.widgets.enumerated() {
            try identifier(widget.kind, field: "widgets[\(index)].kind", limit: Limits.kindLength)
            try identifier(widget.family, field: "widgets[\(index)].family")
            try configuration(widget.configuration, field: "widgets[\(index)].configuration")
        }
        return WidgetRegistration(pushToken: token, widgets: request.widgets)
    }

    public static func controls(_ request: ControlsRequest) throws(ValidationError) -> [Control] {
        guard request.controls.count <= Limits.controls else { throw ValidationError(field: "controls", "at most \(Limits.controls) controls") }
        var seen = Set<String>()
        return try request.controls.enumerated().map { (index, control) throws(ValidationError) in
            try identifier(control.kind, field: "controls[\(index)].kind", limit: Limits.kindLength)
            try configuration(control.configuration, field: "controls[\(index)].configuration")
            let token = try token(control.pushToken, field: "controls[\(index)].pushToken")
            guard seen.insert(token).inserted else {
                throw ValidationError(field: "controls[\(index)].pushToken", "each control has its own push token; this one is repeated")
            }
            return Control(kind: control.kind, configuration: control.configuration, pushToken: token)
        }
    }

    public static func fileProvider(_ request: FileProviderRequest) throws(ValidationError) -> FileProviderRegistration {
        let token = try token(request.pushToken, field: "pushToken")
        guard request.domains.count <= Limits.domains else { throw ValidationError(field: "domains", "at most \(Limits.domains) domains") }
        var seen = Set<String>()
        for (index, domain) in request.domains.enumerated() {
            try identifier(domain.id, field: "domains[\(index)].id")
            guard seen.insert(domain.id).inserted else { throw ValidationError(field: "domains[\(index)].id", "is repeated") }
        }
        return FileProviderRegistration(pushToken: token, domains: request.domains)
    }

    public static func lease(_ seconds: Int?, default defaultSeconds: Int) throws(ValidationError) -> Int {
        let seconds = seconds ?? defaultSeconds
        guard Limits.leaseSeconds.contains(seconds) else {
            throw ValidationError(field: "leaseSeconds", "must be between \(Limits.leaseSeconds.lowerBound) and \(Limits.leaseSeconds.upperBound)")
        }
        return seconds
    }

    /// A number of seconds within `range`, or the default.
    public static func seconds(_ seconds: Int?, field: String, in range: ClosedRange<Int>, default defaultSeconds: Int) throws(ValidationError) -> Int {
        let seconds = seconds ?? defaultSeconds
        guard range.contains(seconds) else { throw ValidationError(field: field, "must be between \(range.lowerBound) and \(range.upperBound)") }
        return seconds
    }
}

extension UInt8 {
    var isHexDigit: Bool { (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self) }
}
