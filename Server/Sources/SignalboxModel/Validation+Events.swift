import SignalboxAPI

extension Limits {
    /// Kinds an event may name.
    public static let eventKinds = 64
    /// Users, channels or installations an event may list.
    public static let audienceEntries = 10_000
}

extension Validate {
    /// An event: bounded kinds and filter, a non-empty audience of valid identifiers.
    public static func event(_ request: EventRequest) throws(ValidationError) -> EventRequest {
        switch request.target {
        case .widgets(let kinds, let filter), .controls(let kinds, let filter):
            let name = if case .widgets = request.target { "target.widgets" } else { "target.controls" }
            // No kinds means every kind (the server-side `reloadAllTimelines()` / `reloadAllControls()`).
            guard kinds.count <= Limits.eventKinds else {
                throw ValidationError(field: "\(name).kinds", "must list at most \(Limits.eventKinds) kinds (none: every kind)")
            }
            for (index, kind) in kinds.enumerated() { try identifier(kind, field: "\(name).kinds[\(index)]", limit: Limits.kindLength) }
            if let filter { try configuration(.object(filter), field: "\(name).configuration") }
        case .fileProvider(let domain, let container):
            try identifier(domain, field: "target.fileProvider.domain")
            try identifier(container, field: "target.fileProvider.container")
        }
        let entries: (String, [String])? = switch request.audience {
        case .all: nil
        case .users(let values): ("audience.users", values)
        case .channels(let values): ("audience.channels", values)
        case .installations(let values): ("audience.installations", values)
        }
        if let (field, values) = entries {
            guard !values.isEmpty, values.count <= Limits.audienceEntries else {
                throw ValidationError(field: field, "must list 1 to \(Limits.audienceEntries) entries")
            }
            for (index, value) in values.enumerated() { try identifier(value, field: "\(field)[\(index)]") }
        }
        return request
    }
}

extension Validate {
    /// Minimum intervals per push type: known types only, 0 (off) to one day.
    public static func pushIntervals(_ values: [String: Int]) throws(ValidationError) -> [PushKind: Int] {
        var intervals: [PushKind: Int] = [:]
        for (name, seconds) in values {
            guard let kind = PushKind(rawValue: name) else {
                throw ValidationError(field: "minimumIntervalSeconds.\(name)", "must be one of widgets, controls, fileprovider")
            }
            guard (0...86_400).contains(seconds) else {
                throw ValidationError(field: "minimumIntervalSeconds.\(name)", "must be between 0 and 86400 seconds")
            }
            intervals[kind] = seconds
        }
        return intervals
    }
}
