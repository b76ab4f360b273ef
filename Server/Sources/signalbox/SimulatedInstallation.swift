#if os(Linux)
import AppleFrameworkStubs
import Crypto
import Foundation
import SignalboxAPI
import SignalboxClient
import SignalboxClientApple
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One phone played by `simulate-device` through SignalboxClientApple, as an app would run it: the app's process
/// (a `SignalboxApple` with a `FileProviderPushDelegate`) and, while it is awake, the File Provider extension's
/// (its own `SignalboxApple` and `SignalboxEnumerators`), sharing one store directory. What the system would hold
/// (the widgets, the controls) is kept here and handed to the stubs' runtime when this phone acts.
final class SimulatedInstallation {
    let name: String
    let network: NetworkSwitch
    /// The registration each token belongs to, to say what a push reloads.
    let registrations = Box<[String: String]>([:])
    /// Who the app's backend mints device JWTs for.
    let user = Box<(id: String, channels: [String])>(("device", []))
    private let store: URL
    private let base: URL
    private let appId: String
    private let leaseSeconds: Int
    /// Mints the current user's JWT, as the app's backend would; every process of the phone uses it.
    private let credentials: DeviceCredentials.Fetch
    private(set) var domains: [FileProviderDomain] = []
    private(set) var app: SignalboxApple
    private var widgetToken: Data?
    private var widgets: [WidgetInfo] = []
    private var controls: [ControlInfo] = []
    private var fileProviderDelegate: FileProviderPushDelegate?
    /// The File Provider extension's process, while it is awake.
    private var fileProviderExtension: (signalbox: SignalboxApple, enumerators: [String: SignalboxEnumerators])?

    init(name: String, store: URL, url: URL, appId: String, deviceSecret: String, leaseSeconds: Int) {
        self.name = name
        self.store = store
        base = url
        self.appId = appId
        self.leaseSeconds = leaseSeconds
        network = NetworkSwitch(URLSessionTransport(timeout: 5))
        let user = self.user
        let credentials: DeviceCredentials.Fetch = {
            let (id, channels) = user.value
            return DeviceCredential(token: Self.mint(userId: id, channels: channels, appId: appId, secret: deviceSecret))
        }
        app = SignalboxApple.configure(Self.configuration(store: store, url: url, appId: appId, credentials: credentials, network: network, domains: [], leaseSeconds: leaseSeconds))
        self.credentials = credentials
    }

    /// The same configuration in every process of the phone; the configuration JSON of a widget or control is its
    /// intent's (`SimulatedIntent`).
    private static func configuration(
        store: URL, url: URL, appId: String, credentials: @escaping DeviceCredentials.Fetch, network: NetworkSwitch,
        domains: [FileProviderDomain], leaseSeconds: Int
    ) -> SignalboxApple.Configuration {
        var configuration = SignalboxApple.Configuration(appGroupDirectory: store, baseURL: url, appId: appId, credentials: credentials)
        configuration.transport = network
        configuration.environment = "sandbox"
        configuration.fileProviderDomains = domains
        configuration.leaseSeconds = leaseSeconds
        configuration.configureAllWidgets { $0.widgetConfigurationIntent(of: SimulatedIntent.self)?.values ?? .object([:]) }
        configuration.configureAllControls { $0.configurationIntent(of: SimulatedIntent.self)?.values ?? .object([:]) }
        return configuration
    }

    private func configured(_ domains: [FileProviderDomain]) -> SignalboxApple {
        SignalboxApple.configure(Self.configuration(
            store: store, url: base, appId: appId, credentials: credentials, network: network, domains: domains, leaseSeconds: leaseSeconds
        ))
    }

    /// This phone acts now: its app process is the current one and the system shows its widgets and controls.
    func activate() {
        app.makeCurrent()
        AppleStubRuntime.reset()
        AppleStubRuntime.setWidgets(token: widgetToken, widgets)
        AppleStubRuntime.setControls(controls)
    }

    /// WidgetKit hands the widget extension a token and every push-enabled widget.
    func widgetsChanged(token: Data, _ list: [(kind: String, family: WidgetFamily, configuration: JSONValue)]) {
        widgetToken = token
        widgets = list.map { AppleStubRuntime.widget(kind: $0.kind, family: $0.family, intent: SimulatedIntent(values: $0.configuration)) }
        activate()
        SignalboxWidgetPushHandler().pushTokenDidChange(AppleStubRuntime.widgetPushInfo(token: token), widgets: widgets)
    }

    /// ControlKit hands the widget extension every push-enabled control.
    func controlsChanged(_ list: [(kind: String, configuration: JSONValue, token: Data)]) {
        controls = list.enumerated().map { index, control in
            AppleStubRuntime.control(kind: control.kind, pushToken: control.token, intent: SimulatedIntent(values: control.configuration), id: "\(control.kind)#\(index)")
        }
        activate()
        SignalboxControlPushHandler().pushTokensDidChange(controls: controls)
    }

    /// The app (new domains) gets a PushKit File Provider token through its delegate.
    func fileProviderToken(_ token: Data, domains: [FileProviderDomain]) {
        if domains != self.domains {
            self.domains = domains
            app = configured(domains)
        }
        activate()
        let delegate = fileProviderDelegate ?? FileProviderPushDelegate()
        fileProviderDelegate = delegate
        AppleStubRuntime.updatePushToken(token, for: .fileProvider, registry: delegate.registry)
    }

    /// The system invalidated the File Provider token.
    func fileProviderTokenInvalidated() {
        activate()
        guard let delegate = fileProviderDelegate else { return }
        AppleStubRuntime.invalidatePushToken(for: .fileProvider, registry: delegate.registry)
    }

    /// The File Provider extension creates an enumerator; returns whether its container is leased.
    func open(domain: String, container: String) async -> Bool {
        let enumerators = extensionEnumerators(domain: domain)
        guard let work = enumerators.opened(NSFileProviderItemIdentifier(container)) else { return false }
        await work.value
        return true
    }

    /// The File Provider extension's enumerator is invalidated.
    func close(domain: String, container: String) async {
        await extensionEnumerators(domain: domain).invalidated(NSFileProviderItemIdentifier(container))?.value
    }

    /// The File Provider extension's process ends: its leases are no longer renewed.
    func extensionExits() { fileProviderExtension = nil }

    private func extensionEnumerators(domain id: String) -> SignalboxEnumerators {
        let process = fileProviderExtension ?? (configured(domains), [:])
        defer { app.makeCurrent() }
        if let existing = process.enumerators[id] { return existing }
        let enumerators: SignalboxEnumerators
        if domains.first(where: { $0.id == id })?.replicated == true {
            let domain = NSFileProviderDomain(identifier: NSFileProviderDomainIdentifier(id), displayName: id)
            enumerators = process.signalbox.enumerators(of: SimulatedReplicatedExtension.self, domain: domain)
        } else {
            enumerators = process.signalbox.enumerators(of: NSFileProviderExtension.self, domain: id)
        }
        fileProviderExtension = (process.signalbox, process.enumerators.merging([id: enumerators]) { $1 })
        return enumerators
    }

    /// A device JWT (HS256 over the device secret's UTF-8 bytes), as the app's backend mints it.
    static func mint(userId: String, channels: [String], appId: String, secret: String) -> String {
        func encode(_ object: [String: Any]) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: Any] = ["sub": userId, "aud": appId, "iat": now, "exp": now + 3600, "channels": channels]
        let input = encode(["alg": "HS256", "typ": "JWT"]) + "." + encode(claims)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return input + "." + Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What a push to `token` with `payload` makes the device reload, in words.
    func describe(token: String, pushType: String, payload: String) -> String {
        let what = registrations.value[token] ?? "unknown token \(token)"
        guard pushType == "fileprovider",
            let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
            let container = object["container-identifier"] as? String
        else { return "\(what) reloaded" }
        let name = container == EnumeratorLeases.workingSet ? "the working set" : container
        return "File Provider domain \(object["domain"] as? String ?? "?"): would enumerate changes in \(name)"
    }
}
#endif
