import Logging
import ServiceLifecycle

/// Runs a clean-up every `interval` until shutdown (expired enumerator leases, events past their retention).
struct PeriodicCleanup: Service {
    /// What `work` removes, for the log.
    let what: String
    let interval: Duration
    let logger: Logger
    /// Removes what is due. - Returns: how many.
    let work: @Sendable () async throws -> Int

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await work()
                    if removed > 0 { logger.debug("\(what) removed", metadata: ["count": "\(removed)"]) }
                } catch {
                    logger.warning("clean-up failed", metadata: ["what": "\(what)", "error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
