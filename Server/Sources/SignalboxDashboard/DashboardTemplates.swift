import Mustache

/// The dashboard's Mustache templates, the files in `Templates/` (HTML-escaped by default; no triple mustaches).
/// Every page extends `layout`; every POST form carries the session's CSRF token. The files are compiled into the
/// binary (`embedInCode`), so a release binary run from anywhere needs no source tree or resource bundle.
enum DashboardTemplates {
    /// All templates, parsed once. A template that does not parse is a programming error caught by the tests.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, bytes) in all {
            do { try library.register(text(bytes), named: name) } catch { preconditionFailure("dashboard template \(name): \(error)") }
        }
        return library
    }()

    /// Each template's name and its file's bytes.
    static let all: [(String, [UInt8])] = [
        ("layout", PackageResources.layout_mustache),
        ("csrf", PackageResources.csrf_mustache),
        ("logTable", PackageResources.logTable_mustache),
        ("outcomeTable", PackageResources.outcomeTable_mustache),
        ("login", PackageResources.login_mustache),
        ("apps", PackageResources.apps_mustache),
        ("secret", PackageResources.secret_mustache),
        ("deleteApp", PackageResources.deleteApp_mustache),
        ("overview", PackageResources.overview_mustache),
        ("inspect", PackageResources.inspect_mustache),
        ("event", PackageResources.event_mustache),
        ("send", PackageResources.send_mustache),
        ("message", PackageResources.message_mustache),
        ("check", PackageResources.check_mustache),
        ("apnsKey", PackageResources.apnsKey_mustache),
        ("webhooks", PackageResources.webhooks_mustache),
    ]

    /// A file's text without the newline that ends the file.
    static func text(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
