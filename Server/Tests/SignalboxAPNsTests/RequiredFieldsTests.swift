import SignalboxAPNs
import Testing

/// Each push type's required payload fields, as `signalbox send` checks them before sending.
struct RequiredFieldsTests {
    @Test(arguments: [
        (PushType.widgets, #"{"aps":{"content-changed":true}}"#, [String]()),
        (.widgets, #"{"aps":{"content-changed":false}}"#, ["aps.content-changed"]),
        (.controls, #"{}"#, ["aps.content-changed"]),
        (.fileprovider, #"{"container-identifier":"c","domain":"d"}"#, []),
        (.fileprovider, #"{"container-identifier":"c"}"#, ["domain"]),
        (.fileprovider, #"{"container-identifier":"","domain":"d"}"#, ["container-identifier"]),
        (.alert, #"{"aps":{"alert":"hi"}}"#, []),
        (.alert, #"{"aps":{"alert":{"title":"t"}}}"#, []),
        (.alert, #"{"aps":{"sound":"x"}}"#, ["aps.alert"]),
        (.background, #"{"aps":{"content-available":1}}"#, []),
        (.background, #"{"aps":{"content-available":0}}"#, ["aps.content-available"]),
        (.liveactivity, #"{"aps":{"event":"end","timestamp":1}}"#, []),
        (.liveactivity, #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#, []),
        (.liveactivity, #"{"aps":{"event":"start","timestamp":1}}"#,
         ["aps.content-state", "aps.attributes-type", "aps.attributes", "aps.alert"]),
        (.liveactivity, #"{"aps":{"event":"pause"}}"#, ["aps.event", "aps.timestamp"]),
        (.widgets, "not json", ["payload"]),
    ])
    func missingFields(type: PushType, payload: String, missing: [String]) {
        #expect(type.missingFields(in: Array(payload.utf8)) == missing)
    }

    /// Every default payload Signalbox builds itself satisfies its type (fileprovider needs a domain).
    @Test(arguments: [PushType.widgets, .controls, .background])
    func defaultsAreComplete(type: PushType) throws {
        #expect(type.missingFields(in: try #require(Payload.default(for: type))) == [])
    }
}
