import Logging
import ServiceLifecycle

/// Runs upkeep every `interval` until shutdown: expired enumerator leases, events past their retention, shared
/// provider tokens.
struct PeriodicWork: Service {
    /// What `work` looks after, for the log.
    let what: String
    let interval: Duration
    let logger: Logger
    /// Does what is due. - Returns: how many things it removed.
    let work: @Sendable () async throws -> Int

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await work()
                    if removed > 0 { logger.debug("\(what) removed", metadata: ["count": "\(removed)"]) }
                } catch {
                    logger.warning("periodic work failed", metadata: ["what": "\(what)", "error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
