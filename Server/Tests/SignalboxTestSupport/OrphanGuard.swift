import Foundation

/// Stops a test's child process when the test process itself is gone.
///
/// `defer` stops a child when a test fails, but not when the test process crashes (a failed assertion in a
/// dependency ends it with signal 4) or is killed: the children of a crashed run kept serving for 18 minutes
/// once. A small shell beside each child polls both processes every second and kills the child with SIGKILL as
/// soon as the test process has ended; it ends by itself when the child ends first. (Linux's parent-death signal
/// is not used: it follows the thread that started the child, and the test runner's threads come and go.)
public enum OrphanGuard {
    /// Watches `pid` on behalf of this process.
    public static func watch(_ pid: Int32) {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = [
            "-c",
            #"while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -0 "$1" 2>/dev/null || kill -KILL "$2" 2>/dev/null; exit 0"#,
            "signalbox-orphan-guard", String(getpid()), String(pid),
        ]
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try? watcher.run()
    }

    /// Waits until `process` has ended or `timeout` has passed. - Returns: whether it ended.
    @discardableResult
    public static func waitForExit(_ process: Process, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        return !process.isRunning
    }

    /// Waits without holding a thread until `process` has ended or `timeout` has passed. - Returns: whether it ended.
    public static func exited(_ process: Process, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return !process.isRunning
    }

    /// `stop` without holding a thread while it waits (bounded by 120 s after SIGKILL, a bound for a hang).
    public static func stopped(_ process: Process, signal: Int32 = SIGTERM, grace: Duration = .seconds(20)) async throws {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        if try await !exited(process, timeout: grace) { kill(process.processIdentifier, SIGKILL) }
        _ = try await exited(process, timeout: .seconds(120))
    }

    /// Ends `process`: `signal`, then SIGKILL if it is still running after `grace`; returns once it has ended.
    public static func stop(_ process: Process, signal: Int32 = SIGTERM, grace: Duration = .seconds(20)) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        if !waitForExit(process, timeout: grace) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
