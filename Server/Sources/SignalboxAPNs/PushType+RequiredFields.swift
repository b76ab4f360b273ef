import Foundation

extension PushType {
    /// The payload fields APNs or the receiving system needs for this push type, as dotted paths
    /// (`aps.content-changed`), missing from `payload`; empty when nothing is missing.
    ///
    /// `signalbox send` checks it before sending: APNs accepts many of these payloads with `200` and the device
    /// then drops them silently (a File Provider signal without `domain` reaches no enumerator, `apns.md` §7),
    /// so a rejection here is the only error the sender ever sees. (`POST …/pushes` does not check it yet.)
    /// - Returns: `["payload"]` when the payload is not a JSON object.
    public func missingFields(in payload: [UInt8]) -> [String] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] else {
            return ["payload"]
        }
        let aps = object["aps"] as? [String: Any] ?? [:]
        var missing: [String] = []
        func require(_ present: Bool, _ path: String) { if !present { missing.append(path) } }
        switch self {
        case .widgets, .controls:
            require(aps["content-changed"] as? Bool == true, "aps.content-changed")
        case .fileprovider:
            require(Self.isNonEmptyString(object["container-identifier"]), "container-identifier")
            require(Self.isNonEmptyString(object["domain"]), "domain")
        case .alert:
            require(aps["alert"] is String || aps["alert"] is [String: Any], "aps.alert")
        case .background:
            require((aps["content-available"] as? NSNumber)?.intValue == 1, "aps.content-available")
        case .liveactivity:
            let event = aps["event"] as? String
            require(["start", "update", "end"].contains(event ?? ""), "aps.event")
            require(aps["timestamp"] is NSNumber, "aps.timestamp")
            if event == "start" || event == "update" { require(aps["content-state"] is [String: Any], "aps.content-state") }
            if event == "start" {
                require(aps["attributes-type"] is String, "aps.attributes-type")
                require(aps["attributes"] is [String: Any], "aps.attributes")
                require(aps["alert"] != nil, "aps.alert")
            }
        }
        return missing
    }

    private static func isNonEmptyString(_ value: Any?) -> Bool {
        guard let string = value as? String else { return false }
        return !string.isEmpty
    }
}
