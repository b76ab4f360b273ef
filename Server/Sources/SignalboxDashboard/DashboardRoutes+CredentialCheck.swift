import Foundation
import Hummingbird
import SignalboxAPI
import SignalboxServer

/// The app page's "Check APNs credentials" button (admin sessions): the API's credential check, as a page.
extension DashboardRoutes {
    func addCredentialCheck(to dashboard: RouterGroup<BasicRequestContext>) {
        dashboard.post("apps/:appId/check") { request, context in
            switch try await viewer(request, appId: try context.parameters.require("appId")) {
            case .refused(let response):
                return response
            case .allowed(let visitor, let app):
                _ = try await form(request, visitor)
                guard visitor.isAdmin else {
                    return message(visitor, "Admin only", "Checking an app's APNs credentials needs the admin key.", status: .forbidden)
                }
                let check: CredentialCheckResponse
                do {
                    check = try await dependencies.checkCredentials(appId: app.id, SigningKeyRequest())
                } catch let error as APIError {
                    return message(visitor, "Credentials not checked", error.message, status: error.status)
                }
                return render("check", CredentialCheckPage(
                    chrome: visitor.chrome("APNs credentials", app: app.id), app: .init(id: app.id),
                    results: check.results.map(CredentialCheckPage.Row.init)
                ))
            }
        }
    }
}

/// What the check page shows: each environment's verdict in words.
struct CredentialCheckPage {
    struct Row {
        let environment: String
        let verdict: String
        let tone: String
        let teamId: String
        let keyId: String
        let answer: String
        let explanation: String

        init(_ result: CredentialCheckResponse.Result) {
            environment = result.environment
            verdict = result.good ? "good" : "not good"
            tone = result.good ? "secret" : "error"
            teamId = result.teamId
            keyId = result.keyId
            answer = [result.status.map(String.init), result.reason].compactMap { $0 }.joined(separator: " ")
            explanation = result.explanation
        }
    }

    let chrome: Chrome
    let app: Chrome.AppLink
    let results: [Row]
}
