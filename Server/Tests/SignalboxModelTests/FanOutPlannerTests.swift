import SignalboxAPI
import SignalboxAPNs
import SignalboxModel
import Testing

/// The fan-out rules of `design.md` (Flow, rule 3), one row per rule.
@Suite struct FanOutPlannerTests {
    static let workingSet = Payload.workingSetContainer
    static let contentChanged = #"{"aps":{"content-changed":true}}"#

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let target: EventTarget
        let candidates: [FanOutCandidate]
        /// Expected (token, kind, payload) in order.
        let expected: [(String, PushKind, String)]
        var testDescription: String { name }
    }

    static func control(_ installation: String, _ token: String, kind: String = "door", _ configuration: [String: JSONValue] = [:],
                        environment: Environment = .sandbox) -> FanOutCandidate {
        FanOutCandidate(installationId: installation, environment: environment, token: token, entries: [(kind, .object(configuration))])
    }

    static func files(_ installation: String, _ token: String, domain: String = "acct", replicated: Bool = false, live: Set<String> = []) -> FanOutCandidate {
        FanOutCandidate(installationId: installation, environment: .production, token: token,
                        domain: FileProviderDomain(id: domain, replicated: replicated), liveContainers: live)
    }

    static let cases: [Case] = [
        Case(name: "controls: every token of a listed kind", target: .controls(kinds: ["door"], configuration: nil),
             candidates: [control("i1", "aa"), control("i1", "bb"), control("i2", "cc", kind: "light")],
             expected: [("aa", .controls, contentChanged), ("bb", .controls, contentChanged)]),
        Case(name: "controls: the filter needs every key equal", target: .controls(kinds: ["door"], configuration: ["door": .string("north"), "home": .number(42)]),
             candidates: [control("i1", "aa", ["door": .string("north"), "home": .number(42), "extra": .bool(true)]), control("i1", "bb", ["door": .string("north")]),
                          control("i2", "cc", ["door": .string("south"), "home": .number(42)])],
             expected: [("aa", .controls, contentChanged)]),
        Case(name: "widgets: one push per installation with any matching widget",
             target: .widgets(kinds: ["Caffeine"], configuration: nil),
             candidates: [FanOutCandidate(installationId: "i1", environment: .sandbox, token: "aa",
                                          entries: [("Weather", .object([:])), ("Caffeine", .object([:])), ("Caffeine", .object([:]))]),
                          FanOutCandidate(installationId: "i2", environment: .sandbox, token: "bb", entries: [("Weather", .object([:]))])],
             expected: [("aa", .widgets, contentChanged)]),
        Case(name: "widgets: the filter applies per widget",
             target: .widgets(kinds: ["Caffeine"], configuration: ["size": .string("big")]),
             candidates: [FanOutCandidate(installationId: "i1", environment: .sandbox, token: "aa",
                                          entries: [("Caffeine", .object(["size": .string("small")])), ("Weather", .object(["size": .string("big")]))])],
             expected: []),
        Case(name: "file provider: the working set always", target: .fileProvider(domain: "acct", container: workingSet),
             candidates: [files("i1", "aa"), files("i2", "bb", domain: "other")],
             expected: [("aa", .fileprovider, FanOutPlanner.fileProviderPayload(container: workingSet, domain: "acct"))]),
        Case(name: "file provider: another container only with a live enumerator", target: .fileProvider(domain: "acct", container: "folder"),
             candidates: [files("i1", "aa"), files("i2", "bb", live: ["folder"]), files("i3", "cc", live: ["elsewhere"])],
             expected: [("bb", .fileprovider, FanOutPlanner.fileProviderPayload(container: "folder", domain: "acct"))]),
        Case(name: "file provider: a replicated domain always gets the working set", target: .fileProvider(domain: "acct", container: "folder"),
             candidates: [files("i1", "aa", replicated: true)],
             expected: [("aa", .fileprovider, FanOutPlanner.fileProviderPayload(container: workingSet, domain: "acct"))]),
        Case(name: "the same token and payload twice is planned once", target: .controls(kinds: ["door"], configuration: nil),
             candidates: [control("i1", "aa"), control("i2", "aa")],
             expected: [("aa", .controls, contentChanged)]),
    ]

    @Test(arguments: cases) func plan(_ row: Case) {
        let planned = FanOutPlanner.plan(row.target, candidates: row.candidates)
        #expect(planned.map(\.token) == row.expected.map(\.0))
        #expect(planned.map(\.kind) == row.expected.map(\.1))
        #expect(planned.map(\.payload) == row.expected.map(\.2))
    }

    @Test func eachPushKeepsItsInstallationsEnvironment() {
        let planned = FanOutPlanner.plan(.controls(kinds: ["door"], configuration: nil), candidates: [
            Self.control("i1", "aa", environment: .sandbox), Self.control("i2", "bb", environment: .production),
        ])
        #expect(planned.map(\.environment) == [.sandbox, .production])
        #expect(planned.map(\.installationId) == ["i1", "i2"])
    }
}
