import Foundation

/// Runs blocking work (a socket read with a timeout) on a thread of its own.
///
/// The test process shares Swift's cooperative threads (one per core: two on the CI machine) with the in-process
/// servers under test; a blocking wait on one of them stalls every server's answers for as long as it blocks.
/// (Child processes are not moved: Foundation's `Process` launched from many threads at once is not trusted here,
/// see docs/reliability.md.)
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
