import Foundation
import Synchronization

/// A `signalbox` child process whose output the test reads; killed with SIGKILL or SIGTERM, and in any case when
/// the value goes away or the test process ends.
public final class ChildProcess: Sendable {
    private let process: Process
    /// What the process printed, and whether its output has ended.
    private let output = Mutex((text: "", ended: false))

    /// The `signalbox` executable built beside the test bundle.
    public static var signalbox: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("signalbox").path
    }

    public init(_ arguments: [String], environment: [String: String] = [:], executable: String = ChildProcess.signalbox) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        self.process = process
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            // Empty data is the end of the output: the process has closed its side.
            if data.isEmpty { handle.readabilityHandler = nil }
            self?.output.withLock { $0.text += String(decoding: data, as: UTF8.self); $0.ended = $0.ended || data.isEmpty }
        }
        try process.run()
        OrphanGuard.watch(process.processIdentifier)
    }

    /// A test that lost its child (a thrown error before its `defer`) still ends it.
    deinit { OrphanGuard.stop(process, signal: SIGKILL) }

    /// Waits for output matching `pattern` and returns its first capture group. - Throws: when `timeout` passes first
    /// (a bound for a hang, not a window: a loaded run may take tens of seconds to start a process).
    public func waitFor(_ pattern: String, timeout: Duration = .seconds(120)) async throws -> String {
        let regex = try NSRegularExpression(pattern: pattern)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // The text and whether the output had ended are read together: a process that has exited may still have
            // output in the pipe, and only the output's end says that all of it has been read.
            let (text, ended) = output.withLock { ($0.text, $0.ended) }
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: match.numberOfRanges > 1 ? 1 : 0), in: text) {
                return String(text[range])
            }
            if ended { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ChildProcessError(message: "no output matching \(pattern); output so far:\n\(printed)")
    }

    public var pid: Int32 { process.processIdentifier }
    /// Everything the process printed so far (stdout and stderr).
    public var printed: String { output.withLock { $0.text } }

    /// Waits for the process to end and for the end of its output, so that `printed` is all of it; its exit status,
    /// or `nil` when still running at the deadline (a bound for a hang, not a window).
    public func waitForExit(timeout: Duration = .seconds(120)) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        guard try await OrphanGuard.exited(process, timeout: timeout) else { return nil }
        // An ended process may still have output in the pipe; only the output's end says all of it was read.
        while !output.withLock({ $0.ended }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return process.terminationStatus
    }

    /// Sends `signal` and waits until the process has ended (SIGKILL after 20 s if it ignores the signal). It blocks
    /// its thread, for `defer`s; an async test stops the process with `stop(_:)`.
    public func kill(_ signal: Int32 = SIGKILL) {
        OrphanGuard.stop(process, signal: signal)
    }

    /// Sends `signal`, then waits without holding a thread until the process has ended and all its output is read
    /// (SIGKILL after `grace` if it ignores the signal). - Returns: its exit status, or `nil` if it outlived SIGKILL
    /// by the 120 s bound for a hang.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, grace: Duration = .seconds(20)) async throws -> Int32? {
        try await OrphanGuard.stopped(process, signal: signal, grace: grace)
        return try await waitForExit()
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
