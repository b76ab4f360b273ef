/// What became of a request started without a task (`APNsTransport.start`, `APNsClient.start`).
public enum Started<Value: Sendable>: Sendable {
    /// The answer, or why there is none.
    case finished(Result<Value, any Error>)
    /// The rest needs a task (a wait, another request): `resume` does it and returns or throws what `send` would.
    case unfinished(resume: @Sendable () async throws -> Value)
}
