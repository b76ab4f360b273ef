import SignalboxAPI

extension Validate {
    /// A registration's client revision: 0 to 2^53 (exact in every JSON number reader).
    public static func revision(_ value: Int64?) throws(ValidationError) -> Int64? {
        guard let value else { return nil }
        guard (0...(1 << 53)).contains(value) else { throw ValidationError(field: "revision", "must be between 0 and 2^53") }
        return value
    }

    /// The `?revision=` of a `DELETE`.
    public static func revision(query: String?) throws(ValidationError) -> Int64? {
        guard let query else { return nil }
        guard let value = Int64(query) else { throw ValidationError(field: "revision", "must be a whole number") }
        return try revision(value)
    }
}
