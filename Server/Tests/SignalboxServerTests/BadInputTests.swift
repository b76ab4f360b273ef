import Foundation
import Testing

/// Malformed requests get a 4xx with the JSON error format, never a 500, and nothing is stored.
struct BadInputTests {
    static let cases: [(path: String, body: String, status: Int, mentions: String)] = [
        ("", "not json", 400, "not valid JSON"),
        ("", #"{"channels":"home"}"#, 400, "channels"),
        ("", #"{"environment":"staging"}"#, 400, "environment"),
        ("", #"{"userId":""}"#, 400, "userId"),
        ("", #"{"channels":[\#((0...100).map { "\"c\($0)\"" }.joined(separator: ","))]}"#, 400, "channels"),
        ("", #"{"userId":"\#(String(repeating: "u", count: 129))"}"#, 400, "userId"),
        ("/widgets", #"{"pushToken":"abc","widgets":[]}"#, 400, "pushToken"),
        ("/widgets", #"{"pushToken":"zz","widgets":[]}"#, 400, "pushToken"),
        ("/widgets", #"{"pushToken":"\#(String(repeating: "a", count: 402))","widgets":[]}"#, 400, "pushToken"),
        ("/widgets", #"{"pushToken":"aa"}"#, 400, "widgets"),
        ("/widgets", #"{"pushToken":"aa","widgets":[{"kind":"k","family":"f","configuration":[1]}]}"#, 400, "configuration"),
        ("/widgets", #"{"pushToken":"aa","widgets":[{"kind":"k","family":"f","configuration":{"a":{"b":{"c":{"d":1}}}}}]}"#, 400, "configuration"),
        ("/widgets", #"{"pushToken":"aa","widgets":[{"kind":"k","family":"f","configuration":{"a":"\#(String(repeating: "x", count: 3000))"}}]}"#, 400, "configuration"),
        ("/widgets", #"{"pushToken":"aa","widgets":[{"kind":"k","family":"f","extra":1}]}"#, 400, "extra"),
        ("/controls", #"{"controls":[{"kind":"k","pushToken":"aa"},{"kind":"l","pushToken":"AA"}]}"#, 400, "repeated"),
        ("/controls", #"{"controls":[{"kind":"","pushToken":"aa"}]}"#, 400, "kind"),
        ("/controls", #"{"controls":[\#((0...64).map { _ in #"{"kind":"k","pushToken":"aa"}"# }.joined(separator: ","))]}"#, 400, "controls"),
        ("/controls", #"{"controls":null}"#, 400, "controls"),
        ("/file-provider", #"{"pushToken":"aa","domains":[{"id":"d"},{"id":"d"}]}"#, 400, "repeated"),
        ("/file-provider", #"{"pushToken":"aa","domains":[{"replicated":true}]}"#, 400, "id"),
        ("/file-provider/domains/d/enumerators/c", #"{"leaseSeconds":0}"#, 400, "leaseSeconds"),
        ("/file-provider/domains/d/enumerators/c", #"{"leaseSeconds":"soon"}"#, 400, "leaseSeconds"),
    ]

    @Test(arguments: cases.indices)
    func badRegistrationIsAClearError(_ index: Int) async throws {
        let test = Self.cases[index]
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let base = "/v1/apps/\(app.id)/installations/i"
            try await api.call(.put, base, key: app.serverKey, json: #"{"userId":"u"}"#)
            try await api.call(.put, base + "/file-provider", key: app.serverKey, json: #"{"pushToken":"ee","domains":[{"id":"d"}]}"#)
            let before = try await api.call(.get, base, key: app.serverKey).body
            let reply = try await api.call(.put, base + test.path, key: app.serverKey, json: test.body)
            #expect(reply.status == test.status, "\(reply.body)")
            #expect(reply.errorCode != nil, "\(reply.body)")
            #expect(reply.errorMessage?.contains(test.mentions) == true, "\(reply.body)")
            #expect(try await api.call(.get, base, key: app.serverKey).body == before, "nothing may change")
        }
    }

    @Test func oversizedBodyIs413() async throws {
        try await Harness.make { $0.bodyLimit = 1024 }.run { api in
            let app = try await api.createApp()
            let reply = try await api.call(
                .put, "/v1/apps/\(app.id)/installations/i", key: app.serverKey,
                json: #"{"userId":"\#(String(repeating: "u", count: 2000))"}"#
            )
            #expect(reply.status == 413)
            #expect(reply.errorCode == "body_too_large")
        }
    }

    @Test func badPathIdentifiersAndUnknownRoutesAreJSONErrors() async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let long = String(repeating: "i", count: 200)
            let reply = try await api.call(.put, "/v1/apps/\(app.id)/installations/\(long)", key: app.serverKey, json: "{}")
            #expect(reply.status == 400)
            #expect(reply.errorMessage?.contains("installationId") == true)
            let unknown = try await api.call(.get, "/v1/nothing", key: nil)
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")
        }
    }

    @Test(arguments: ["a\r\nb", "a\u{0}b", "two words", "caf\u{e9}", String(repeating: "x", count: 65)])
    func collapseIdsAPNsCannotTakeAreRefusedBeforeSending(_ collapseId: String) async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let body = try String(decoding: JSONSerialization.data(withJSONObject: ["pushToken": "aa", "pushType": "alert", "collapseId": collapseId]), as: UTF8.self)
            let reply = try await api.call(.post, "/v1/apps/\(app.id)/pushes", key: app.serverKey, json: body)
            #expect(reply.status == 400, "\(reply.body)")
            #expect(reply.errorCode == "invalid_field" && reply.errorMessage?.contains("collapseId") == true, "\(reply.body)")
        }
    }

    @Test(arguments: [
        ("fileprovider", #"{"container-identifier":"NSFileProviderWorkingSetContainerItemIdentifier"}"#, "domain"),
        ("fileprovider", nil, "domain"),
        ("controls", #"{"aps":{}}"#, "aps.content-changed"),
        ("alert", nil, "no default payload"),
    ])
    func pushesLackingTheirTypesRequiredFieldsAreRefusedBeforeSending(type: String, payload: String?, named: String) async throws {
        try await Harness.make().run { api in
            let app = try await api.createApp()
            let payloadField = payload.map { #", "payload": \#($0)"# } ?? ""
            let body = #"{"pushToken": "\#(String(repeating: "ab", count: 32))", "pushType": "\#(type)"\#(payloadField)}"#
            let reply = try await api.call(.post, "/v1/apps/\(app.id)/pushes", key: app.serverKey, json: body)
            #expect(reply.status == 400, "\(reply.body)")
            #expect(reply.errorCode == "invalid_push" && reply.errorMessage?.contains(named) == true, "\(reply.body)")
        }
    }
}
