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
    /// The system invalidated the PushKit File Provider token: the registration (token, domains, enumerators) goes.
    case fileProviderGone

    /// The queue key: one latest snapshot per key.
    public var key: String {
        switch self {
        case .installation: "installation"
        case .widgets: "widgets"
        case .controls: "controls"
        case .fileProvider, .fileProviderGone: "file-provider"
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
        case .fileProvider, .fileProviderGone: 3
        case .enumeratorLease, .enumeratorGone: 4
        }
    }

    var isEnumerator: Bool { order == 4 }

    /// A DELETE: acknowledged entries go from the store, and a 404 means there is nothing left to remove.
    var isRemoval: Bool {
        switch self {
        case .enumeratorGone, .fileProviderGone: true
        default: false
        }
    }

    /// Registers a push token of the device (kept when the installation changes: the tokens stay the device's).
    var holdsToken: Bool {
        switch self {
        case .widgets, .controls, .fileProvider: true
        default: false
        }
    }
}
