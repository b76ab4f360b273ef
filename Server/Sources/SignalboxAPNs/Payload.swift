import Foundation

/// Builders for the JSON bodies Signalbox sends (`apns.md` §1.5, §5.2, §6.2, §7.2).
public enum Payload {
    /// `{"aps":{"content-changed":true}}`: the widgets and controls reload signal.
    public static let contentChanged: [UInt8] = Array(#"{"aps":{"content-changed":true}}"#.utf8)

    /// The File Provider working-set container identifier.
    public static let workingSetContainer = "NSFileProviderWorkingSetContainerItemIdentifier"

    /// The File Provider root container identifier.
    public static let rootContainer = "NSFileProviderRootContainerItemIdentifier"

    /// `{"container-identifier":…,"domain":…}`: the File Provider enumerator signal.
    /// - Parameters:
    ///   - container: the container item identifier to signal (or `workingSetContainer`).
    ///   - domain: the `NSFileProviderDomainIdentifier`; omitted for a non-replicated default domain.
    public static func fileProvider(container: String, domain: String?) -> [UInt8] {
        var object = ["container-identifier": container]
        if let domain { object["domain"] = domain }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a [String: String] cannot fail.
        return Array((try? encoder.encode(object)) ?? Data())
    }

    /// The default body of a push type: content-changed for widgets and controls, a
    /// `content-available` signal for background, `nil` where the caller must supply one.
    public static func `default`(for type: PushType) -> [UInt8]? {
        switch type {
        case .widgets, .controls: contentChanged
        case .background: Array(#"{"aps":{"content-available":1}}"#.utf8)
        case .fileprovider: fileProvider(container: workingSetContainer, domain: nil)
        case .alert, .liveactivity: nil
        }
    }
}
