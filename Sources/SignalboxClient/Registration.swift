import Foundation
import SignalboxAPI

/// What one registration key should look like on the server: the latest desired snapshot.
public enum RegistrationSnapshot: Sendable, Hashable, Codable {
    case installation(InstallationRequest)
    case widgets(WidgetsRequest)
    case controls(ControlsRequest)
    case fileProvider(FileProviderRequest)
    /// A live enumerator, asked for at `requestedAt`: once `leaseSeconds` have passed unsent, it has lapsed
    /// and is dropped rather than sent late.
    case enumeratorLease(domain: String, container: String, leaseSeconds: Int, requestedAt: Date)
    /// The enumerator was invalidated.
    case enumeratorGone(domain: String, container: String)

    /// The queue key: one latest snapshot per key.
    public var key: String {
        switch self {
        case .installation: "installation"
        case .widgets: "widgets"
        case .controls: "controls"
        case .fileProvider: "file-provider"
        case .enumeratorLease(let domain, let container, _, _), .enumeratorGone(let domain, let container):
            Self.enumeratorKey(domain: domain, container: container)
        }
    }

    static func enumeratorKey(domain: String, container: String) -> String { "enumerator/\(domain)/\(container)" }

    /// Sync order: the installation first, the File Provider registration before its enumerators.
    var order: Int {
        switch self {
        case .installation: 0
        case .widgets: 1
        case .controls: 2
        case .fileProvider: 3
        case .enumeratorLease, .enumeratorGone: 4
        }
    }

    var isEnumerator: Bool { order == 4 }
}
