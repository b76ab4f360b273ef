import ArgumentParser
import Foundation
import SignalboxAPI

/// `signalbox tokens export|import`: an app's installations and push tokens as NDJSON (one installation a line),
/// to move them between Signalbox servers or in from another push server.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Export or import an app's installations and push tokens as NDJSON, one installation a line.",
        subcommands: [Export.self, Import.self]
    )

    /// Where the app is and its server key: the API keeps registrations to the app's server (the admin key
    /// manages apps, not their installations).
    struct Target: ParsableArguments {
        @Option(help: "Signalbox URL.")
        var url = "http://127.0.0.1:8080"
        @Option(help: "The app's server key (default: $SIGNALBOX_SERVER_KEY).")
        var serverKey: String?
        @Argument(help: "The app's id.")
        var appId: String

        func send(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
            guard let key = serverKey ?? ProcessInfo.processInfo.environment["SIGNALBOX_SERVER_KEY"].flatMap({ $0.isEmpty ? nil : $0 }) else {
                throw ValidationError("no server key: pass --server-key or set SIGNALBOX_SERVER_KEY (the app's key, not the admin key)")
            }
            var connection = try AppsCommand.Connection.parse([])
            connection.url = url
            return try await connection.send(method, "/v1/apps/\(appId)" + path, body: body, bearer: key)
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every installation of an app (user, channels, environment, widgets, controls, File Provider token and domains) as NDJSON."
        )
        @OptionGroup var target: Target
        @Option(help: "Write to this file (default: standard output).")
        var output: String?
        @Option(help: "Report progress on standard error every this many installations.")
        var progressEvery = 1000

        func run() async throws {
            let sink = try output.map { path -> FileHandle in
                guard FileManager.default.createFile(atPath: path, contents: nil) else { throw ValidationError("cannot create \(path)") }
                return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            } ?? FileHandle.standardOutput
            defer { if output != nil { try? sink.close() } }
            let decoder = SignalboxJSON.makeDecoder()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            var after: String?
            var written = 0
            repeat {
                let query = "?limit=500" + (after.map { "&after=" + TokensCommand.escaped($0) } ?? "")
                let page = try decoder.decode(InstallationPage.self, from: try await target.send("GET", "/installations" + query))
                for id in page.installationIds {
                    let path = "/installations/" + TokensCommand.escaped(id)
                    let installation: InstallationResponse
                    do {
                        installation = try decoder.decode(InstallationResponse.self, from: try await target.send("GET", path))
                    } catch let error as ValidationError where error.message.hasPrefix("HTTP 404") {
                        continue  // deleted since the page was read
                    }
                    var line = try encoder.encode(TokenRecord(installation))
                    line.append(UInt8(ascii: "\n"))
                    try sink.write(contentsOf: line)
                    written += 1
                    if written.isMultiple(of: max(progressEvery, 1)) { TokensCommand.progress("exported \(written) installations") }
                }
                after = page.next
            } while after != nil
            TokensCommand.progress("exported \(written) installations of app \(target.appId)")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register the installations of an NDJSON file (from tokens export) with PUTs; every line is checked before anything is written.",
            discussion: """
                A second import of the same file changes nothing but lastSeenAt. Bad lines are listed with their \
                number and reason; nothing is written while any line is bad, unless --skip-invalid.
                """
        )
        @OptionGroup var target: Target
        @Argument(help: "The NDJSON file (- for standard input).")
        var file: String
        @Flag(help: "Check every line and say what would be written, without writing.")
        var dryRun = false
        @Flag(help: "Import the good lines even when some are bad (the bad ones are still listed).")
        var skipInvalid = false
        @Option(help: "Report progress on standard error every this many lines.")
        var progressEvery = 1000

        func run() async throws {
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let contents = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
                data = contents
            }
            let (records, problems) = TokensCommand.parse(data)
            for problem in problems { TokensCommand.progress("line \(problem.line): \(problem.reason)") }
            if !problems.isEmpty && !skipInvalid {
                TokensCommand.progress("\(problems.count) bad line(s), \(records.count) good; nothing written (fix them, or pass --skip-invalid)")
                throw ExitCode(1)
            }
            if dryRun {
                print("dry run: \(records.count) installation(s) would be written, \(problems.count) bad line(s) skipped; nothing written")
                return
            }
            let encoder = SignalboxJSON.makeEncoder()
            for (index, (line, record)) in records.enumerated() {
                do {
                    try await put(record, encoder: encoder)
                } catch {
                    TokensCommand.progress("line \(line): \(error); \(index) installation(s) written before it (importing again is safe)")
                    throw ExitCode(1)
                }
                if (index + 1).isMultiple(of: max(progressEvery, 1)) { TokensCommand.progress("imported \(index + 1) of \(records.count)") }
            }
            print("imported \(records.count) installation(s)" + (problems.isEmpty ? "" : ", skipped \(problems.count) bad line(s)"))
        }

        /// PUTs the installation, then each registration it holds: the same file imported twice writes the same state.
        private func put(_ record: TokenRecord, encoder: JSONEncoder) async throws {
            let path = "/installations/" + TokensCommand.escaped(record.installationId)
            let installation = InstallationRequest(userId: record.userId, channels: record.channels, environment: record.environment)
            _ = try await target.send("PUT", path, body: try encoder.encode(installation))
            if let widgets = record.widgets { _ = try await target.send("PUT", path + "/widgets", body: try encoder.encode(widgets)) }
            if let controls = record.controls {
                _ = try await target.send("PUT", path + "/controls", body: try encoder.encode(ControlsRequest(controls: controls)))
            }
            if let fileProvider = record.fileProvider {
                _ = try await target.send("PUT", path + "/file-provider", body: try encoder.encode(fileProvider))
            }
        }
    }

    /// Reads every non-empty line: the records to write (with their line numbers) and each bad line's reason.
    static func parse(_ data: Data) -> (records: [(line: Int, record: TokenRecord)], problems: [(line: Int, reason: String)]) {
        let decoder = SignalboxJSON.makeDecoder()
        var records: [(line: Int, record: TokenRecord)] = []
        var problems: [(line: Int, reason: String)] = []
        var seen: [String: Int] = [:]
        for (index, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) else { continue }
            let record: TokenRecord
            do {
                record = try decoder.decode(TokenRecord.self, from: Data(line))
            } catch {
                problems.append((number, "not an installation: \(describe(error))"))
                continue
            }
            if let problem = record.problem {
                problems.append((number, problem))
            } else if let first = seen[record.installationId] {
                problems.append((number, "installation \(record.installationId) is also on line \(first)"))
            } else {
                seen[record.installationId] = number
                records.append((number, record))
            }
        }
        return (records, problems)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "bad value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: return "\(error)"
        }
    }

    /// An id as one path segment or query value (`-`, `.`, `_`, `~` stay as they are).
    static func escaped(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? id
    }

    static func progress(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
