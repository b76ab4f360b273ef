import Foundation
import SignalboxTestSupport
import Testing

/// The shipped `signalbox` offers what operators and app developers use; the lab's benchmarks and fault injection
/// are `signalbox-bench`, built beside it but no product of the package.
struct CommandHelpTests {
    @Test func signalboxHelpListsTheOperatorsCommandsAndNoBenchmark() async throws {
        let process = try ChildProcess(["--help"])
        defer { process.kill() }
        #expect(try await process.waitForExit() == 0)
        let help = process.printed
        let listed = try #require(help.components(separatedBy: "SUBCOMMANDS:").last).split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(listed == ["serve", "apps", "tokens", "simulate-apns", "simulate-device", "send", "See"], "\(help)")
        #expect(!help.lowercased().contains("bench"), "\(help)")
        let bench = try ChildProcess(["bench", "fan-out", "--count", "1"])
        defer { bench.kill() }
        #expect(try await bench.waitForExit() != 0, "no bench subcommand")
    }

    @Test func theBenchBinaryListsTheBenchmarks() async throws {
        let bench = URL(fileURLWithPath: ChildProcess.signalbox).deletingLastPathComponent().appendingPathComponent("signalbox-bench").path
        let process = try ChildProcess(["--help"], executable: bench)
        defer { process.kill() }
        #expect(try await process.waitForExit() == 0)
        for command in ["transport", "fan-out", "faults", "noisy-neighbour"] {
            #expect(process.printed.contains("  \(command)"), "\(command) in:\n\(process.printed)")
        }
    }
}
