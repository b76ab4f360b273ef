import Foundation
import SignalboxAPNs
import Testing

@Suite struct PushTests {
    static let token = try! DeviceToken(hex: "ABCDEF0123456789")

    struct Expectation: Sendable, CustomStringConvertible {
        var type: PushType
        var topic: String
        var priority: String?
        var expiration: String?
        var payload: String
        var description: String { type.rawValue }
    }

    static let expectations: [Expectation] = [
        .init(type: .widgets, topic: "com.example.app.push-type.widgets", priority: nil, expiration: nil,
              payload: #"{"aps":{"content-changed":true}}"#),
        .init(type: .controls, topic: "com.example.app.push-type.controls", priority: "10", expiration: "0",
              payload: #"{"aps":{"content-changed":true}}"#),
        .init(type: .fileprovider, topic: "com.example.app.pushkit.fileprovider", priority: "5", expiration: nil,
              payload: #"{"container-identifier":"NSFileProviderWorkingSetContainerItemIdentifier"}"#),
        .init(type: .background, topic: "com.example.app", priority: "5", expiration: nil,
              payload: #"{"aps":{"content-available":1}}"#),
    ]

    @Test(arguments: expectations)
    func defaultHeadersAndPayload(_ expected: Expectation) throws {
        let id = UUID()
        let push = try Push(deviceToken: Self.token, pushType: expected.type, bundleId: "com.example.app", id: id)
        let headers = Dictionary(uniqueKeysWithValues: push.headers.map { ($0.name, $0.value) })
        #expect(headers["apns-push-type"] == expected.type.rawValue)
        #expect(headers["apns-topic"] == expected.topic)
        #expect(headers["apns-priority"] == expected.priority)
        #expect(headers["apns-expiration"] == expected.expiration)
        #expect(headers["apns-id"] == id.uuidString.lowercased())
        #expect(headers["apns-collapse-id"] == nil)
        #expect(String(decoding: push.payload, as: UTF8.self) == expected.payload)
        #expect(push.path == "/3/device/abcdef0123456789")
    }

    @Test func perRequestHeadersAreNeverIndexed() throws {
        let push = try Push(deviceToken: Self.token, pushType: .controls, bundleId: "b", collapseId: "c", id: UUID())
        let notIndexed = Set(push.headers.filter { !$0.indexable }.map(\.name))
        #expect(notIndexed == ["apns-id", "apns-expiration", "apns-collapse-id"])
    }

    @Test func withoutAnIdNoApnsIdIsSentSoAPNsAssignsOne() throws {
        let push = try Push(deviceToken: Self.token, pushType: .controls, bundleId: "b")
        #expect(!push.headers.contains { $0.name == "apns-id" })
    }

    @Test func callerChoicesOverrideDefaults() throws {
        let push = try Push(
            deviceToken: Self.token, pushType: .widgets, bundleId: "b", priority: .conserveEnergy,
            expiration: .at(epochSeconds: 1_900_000_000)
        )
        let headers = Dictionary(uniqueKeysWithValues: push.headers.map { ($0.name, $0.value) })
        #expect(headers["apns-priority"] == "5")
        #expect(headers["apns-expiration"] == "1900000000")
        let noPriority = try Push(deviceToken: Self.token, pushType: .controls, bundleId: "b", priority: .some(nil))
        #expect(!noPriority.headers.contains { $0.name == "apns-priority" })
    }

    @Test func fileProviderPayloadNamesContainerAndDomain() {
        let body = Payload.fileProvider(container: "folder-1", domain: "acct-7")
        #expect(String(decoding: body, as: UTF8.self) == #"{"container-identifier":"folder-1","domain":"acct-7"}"#)
    }

    @Test func payloadLimitsAreCheckedBeforeSending() throws {
        let exact = Array(repeating: UInt8(ascii: " "), count: 4096)
        _ = try Push(deviceToken: Self.token, pushType: .alert, bundleId: "b", payload: exact)
        #expect(throws: PushError.self) {
            try Push(deviceToken: Self.token, pushType: .alert, bundleId: "b", payload: exact + [0x20])
        }
        #expect(throws: PushError.self) { try Push(deviceToken: Self.token, pushType: .alert, bundleId: "b") }
        #expect(throws: PushError.self) {
            try Push(deviceToken: Self.token, pushType: .controls, bundleId: "b", collapseId: String(repeating: "é", count: 33))
        }
        _ = try Push(deviceToken: Self.token, pushType: .controls, bundleId: "b", collapseId: String(repeating: "x", count: 64))
    }

    @Test(arguments: ["", "abc", "zz", "12 4", String(repeating: "a", count: 402)])
    func malformedTokensAreRejected(_ text: String) {
        #expect(throws: DeviceToken.Invalid.self) { try DeviceToken(hex: text) }
    }

    @Test(arguments: ["a\r\nb", "a\nb", "a\u{0}b", "with space", "caf\u{e9}", "", "tab\there"])
    func collapseIdsHTTP2CannotCarryAreRefusedWhereThePushIsBuilt(_ collapseId: String) {
        #expect(throws: PushError.self) { try Push(deviceToken: Self.token, pushType: .alert, bundleId: "b", collapseId: collapseId) }
        #expect(!Push.isValidCollapseId(collapseId))
    }

    @Test func tokensOfAnyEvenLengthAreLowerCased() throws {
        #expect(try DeviceToken(hex: "AB").hex == "ab")
        #expect(try DeviceToken(hex: String(repeating: "F", count: 160)).hex == String(repeating: "f", count: 160))
        #expect(try DeviceToken(bytes: [0x00, 0xff, 0x1a]).hex == "00ff1a")
    }

    @Test func topicSuffixIdentifiesPushType() {
        #expect(PushType.matching(topic: "a.b.push-type.controls", bundleId: "a.b") == .controls)
        #expect(PushType.matching(topic: "a.b.pushkit.fileprovider", bundleId: "a.b") == .fileprovider)
        #expect(PushType.matching(topic: "a.b.voip", bundleId: "a.b") == nil)
    }
}
