import Foundation
import Testing

/// The Swift code of the README and of the DocC integration guide is the regions of `Examples/` between
/// `// snippet: NAME` and `// end snippet`, which the test build compiles (target SignalboxExamples): a snippet
/// edited in one place only fails here.
struct ReadmeSnippetsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The compiled snippets, by name.
    static func snippets() throws -> [String: String] {
        var found: [String: String] = [:]
        let folder = root.appendingPathComponent("Examples")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let lines = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).components(separatedBy: "\n")
            var current: (name: String, lines: [String])?
            for line in lines {
                if line.hasPrefix("// snippet: ") {
                    current = (String(line.dropFirst("// snippet: ".count)), [])
                } else if line == "// end snippet", let snippet = current {
                    found[snippet.name] = snippet.lines.joined(separator: "\n")
                    current = nil
                } else {
                    current?.lines.append(line)
                }
            }
        }
        return found
    }

    /// The ```swift blocks of a Markdown file of the repository.
    static func swiftBlocks(_ path: String) throws -> [String] {
        let lines = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8).components(separatedBy: "\n")
        var blocks: [String] = []
        var current: [String]?
        for line in lines {
            if line == "```swift" {
                current = []
            } else if line == "```", let block = current {
                blocks.append(block.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func everySwiftBlockOfTheReadmeIsACompiledSnippetAndEverySnippetIsQuoted() throws {
        let snippets = try Self.snippets()
        let blocks = try Self.swiftBlocks("README.md")
        #expect(!blocks.isEmpty)
        for block in blocks {
            let compiled = snippets.values.contains(block)
            #expect(compiled, "a README block is not a snippet of Examples/: \(block.prefix(80))…")
        }
        for (name, snippet) in snippets.sorted(by: { $0.key < $1.key }) {
            let quoted = blocks.contains(snippet)
            #expect(quoted, "snippet \(name) is not quoted in the README as it is in Examples/")
        }
    }

    @Test func theIntegrationGuidesSwiftIsCompiledSnippetsToo() throws {
        let snippets = try Self.snippets()
        let blocks = try Self.swiftBlocks("Sources/SignalboxClient/SignalboxClient.docc/IntegrationGuide.md")
        #expect(blocks.count == snippets.count)
        for block in blocks {
            let compiled = snippets.values.contains(block)
            #expect(compiled, "an integration guide block is not a snippet of Examples/: \(block.prefix(80))…")
        }
    }
}
