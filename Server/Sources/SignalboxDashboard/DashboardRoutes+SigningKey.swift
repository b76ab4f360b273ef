import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxModel
import SignalboxServer

/// The app page's "Replace APNs key" form (admin sessions): `PUT /v1/apps/{appId}/apns-key` as a form, through the
/// same `replaceSigningKey` (one validation). The page never shows the `.p8` back, not even after an error.
extension DashboardRoutes {
    func addSigningKeyPages(to dashboard: RouterGroup<BasicRequestContext>) {
        dashboard.get("apps/:appId/apns-key") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response):
                return response
            case .allowed(let visitor, let app):
                guard visitor.isAdmin else { return keyAdminOnly(visitor) }
                return try await signingKeyPage(visitor, appId: app.id, form: .init())
            }
        }
        dashboard.post("apps/:appId/apns-key") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response):
                return response
            case .allowed(let visitor, let app):
                let fields = try await form(request, visitor)
                guard visitor.isAdmin else { return keyAdminOnly(visitor) }
                return try await replaceKey(visitor, appId: app.id, fields: fields)
            }
        }
    }

    private func replaceKey(_ visitor: Visitor, appId: String, fields: FormData) async throws -> Response {
        let form = SigningKeyPage.Form(
            teamId: fields["teamId"]?.trimmingCharacters(in: .whitespaces) ?? "", keyId: fields["keyId"]?.trimmingCharacters(in: .whitespaces) ?? "",
            environment: fields["environment"] ?? ""
        )
        // The uploaded file wins over the text area; an empty file input arrives as an empty field.
        let uploaded = fields["privateKeyFile"] ?? ""
        let pem = uploaded.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? fields["privateKey"] ?? "" : uploaded
        let body = SigningKeyRequest(
            teamId: form.teamId, keyId: form.keyId, privateKey: pem.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : pem,
            environment: form.environment.isEmpty ? nil : form.environment
        )
        do {
            let keys = try await dependencies.replaceSigningKey(appId: appId, body)
            return render("apnsKey", SigningKeyPage(
                chrome: visitor.chrome("APNs key", app: appId), app: .init(id: appId), saved: true, keys: keys.keys.map(SigningKeyPage.Row.init),
                form: .init()
            ))
        } catch let error as APIError {
            return try await signingKeyPage(visitor, appId: appId, form: form, error: Self.notReplaced(error.message), status: error.status)
        } catch let error as ValidationError {
            return try await signingKeyPage(visitor, appId: appId, form: form, error: Self.notReplaced(error.description), status: .badRequest)
        }
    }

    private func signingKeyPage(
        _ visitor: Visitor, appId: String, form: SigningKeyPage.Form, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var chrome = visitor.chrome("APNs key", app: appId)
        chrome.error = error
        let keys = try await dependencies.signingKeys(appId: appId)
        return render("apnsKey", SigningKeyPage(
            chrome: chrome, app: .init(id: appId), saved: false, keys: keys.keys.map(SigningKeyPage.Row.init), form: form
        ), status: status)
    }

    private func keyAdminOnly(_ visitor: Visitor) -> Response {
        message(visitor, "Admin only", "Replacing an app's APNs key needs the admin key.", status: .forbidden)
    }

    /// The form's error line. The messages name fields and rules, never the key (`SigningKey.Invalid`).
    static func notReplaced(_ message: String) -> String { "The key was not replaced: \(plain(message))" }

    /// `keyId: key id must be …` → `key id must be …`, `privateKey: is required …` → `the .p8 key is required …`: the
    /// API's field names mean nothing on a form.
    static func plain(_ message: String) -> String {
        let labels = ["privateKey": "the .p8 key", "keyId": "the key id", "teamId": "the team id", "environment": "the environment"]
        for (field, label) in labels where message.hasPrefix(field + ": ") {
            let rest = message.dropFirst(field.count + 2)
            return rest.hasPrefix("is ") || rest.hasPrefix("must ") ? "\(label) \(rest)" : String(rest)
        }
        return message
    }
}

/// The APNs key page: the key each environment signs with (ids only), the replacement form, and after a save a
/// way to check the new key against APNs.
struct SigningKeyPage {
    struct Row {
        let environment: String
        let teamId: String
        let keyId: String
        let scope: String

        init(_ key: SigningKeysResponse.Key) {
            environment = key.environment
            teamId = key.teamId
            keyId = key.keyId
            scope = key.environmentOnly ? "this environment only" : "both environments"
        }
    }

    /// What the form shows again after an error: never the key itself.
    struct Form {
        struct Choice { let value: String; let label: String; let selected: Bool }

        let teamId: String
        let keyId: String
        let environment: String
        /// The API's `environment`: absent (both), `sandbox` or `production` (stored: templates read stored properties).
        let environments: [Choice]

        init(teamId: String = "", keyId: String = "", environment: String = "") {
            self.teamId = teamId
            self.keyId = keyId
            self.environment = environment
            environments = [("", "both environments"), ("sandbox", "sandbox only"), ("production", "production only")].map {
                Choice(value: $0.0, label: $0.1, selected: $0.0 == environment)
            }
        }
    }

    let chrome: Chrome
    let app: Chrome.AppLink
    let saved: Bool
    let keys: [Row]
    let form: Form
}
