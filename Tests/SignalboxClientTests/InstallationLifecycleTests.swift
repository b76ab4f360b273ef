import Foundation
import SignalboxAPI
import SignalboxClientTesting
import Testing
@testable import SignalboxClient

/// One device over its users' lives: sign-out, a user switch, another user's installation, a dead token.
struct InstallationLifecycleTests {
    static func fixture(ids: [String] = ["inst-2", "inst-3"]) -> QueueFixture {
        let next = Box(ids)
        return QueueFixture(makeInstallationId: { next.withLock { $0.removeFirst() } })
    }

    static func installation(_ user: String) -> RegistrationSnapshot { .installation(InstallationRequest(userId: user, channels: ["home:42"])) }

    @Test func signOutDeletesTheInstallationWithTheDeviceJWTAndStartsANewOneKeepingTheTokensForTheNextUser() async throws {
        let fixture = Self.fixture()
        try fixture.queue.set(Self.installation("u1"))
        try fixture.queue.set(QueueFixture.controls("c1"))
        try await fixture.queue.sync()
        fixture.transport.clear()

        try await fixture.queue.signOut()
        #expect(fixture.transport.sent == ["DELETE installation"])
        #expect(fixture.transport.requests[0].url.path == "/v1/apps/app-1/installations/inst-1")
        #expect(fixture.transport.requests[0].headers["Authorization"] == "Bearer jwt-1", "the signing-out user's JWT")
        #expect(try fixture.queue.installationId() == "inst-2")
        // Nothing is sent for nobody; the next user's installation takes the device's tokens.
        #expect(try await fixture.queue.sync().acknowledged.isEmpty)
        try fixture.queue.set(Self.installation("u2"))
        try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["DELETE installation", "PUT installation", "PUT controls"])
        #expect(fixture.transport.requests[1].url.path == "/v1/apps/app-1/installations/inst-2")
        #expect(fixture.transport.requests[1].headers["Authorization"] == "Bearer jwt-2", "the next user's JWT, not the cached one")
    }

    @Test func aSignOutTheServerDidNotHearChangesNothing() async throws {
        let fixture = Self.fixture()
        try fixture.queue.set(Self.installation("u1"))
        try await fixture.queue.sync()
        fixture.transport.answer { _ in throw Offline() }
        await #expect(throws: SyncError.self) { try await fixture.queue.signOut() }
        #expect(try fixture.queue.installationId() == "inst-1")
        // A 404 (deleted already) is a sign-out done.
        fixture.transport.answer { _ in HTTPResponseData(status: 404, body: Data(#"{"error":{"code":"not_found","message":"no"}}"#.utf8)) }
        try await fixture.queue.signOut()
        #expect(try fixture.queue.installationId() == "inst-2")
    }

    @Test func anotherUserSigningInMovesToANewInstallationAndNothingWaits() async throws {
        let fixture = Self.fixture()
        try fixture.queue.set(Self.installation("u1"))
        try fixture.queue.set(QueueFixture.controls("c1"))
        try await fixture.queue.sync()
        fixture.transport.clear()

        try fixture.queue.set(Self.installation("u2"))
        #expect(try fixture.queue.installationId() == "inst-2")
        let report = try await fixture.queue.sync()
        #expect(report.acknowledged == ["installation", "controls"])
        // u1's installation is deleted with u1's last JWT (the server moves tokens only between one user's
        // installations, so it would keep the device's tokens), then the device registers under u2.
        #expect(fixture.transport.sent == ["DELETE installation", "PUT installation", "PUT controls"])
        #expect(fixture.transport.requests.map(\.url.path) == [
            "/v1/apps/app-1/installations/inst-1", "/v1/apps/app-1/installations/inst-2", "/v1/apps/app-1/installations/inst-2/controls",
        ])
        #expect(fixture.transport.requests.map { $0.headers["Authorization"] } == ["Bearer jwt-1", "Bearer jwt-2", "Bearer jwt-2"])
        #expect(try fixture.queue.state().abandonedInstallationIds == nil)
        // The same user again (a new channel) keeps the id.
        try fixture.queue.set(.installation(InstallationRequest(userId: "u2", channels: ["home:43"])))
        #expect(try fixture.queue.installationId() == "inst-2")
    }

    @Test func anInstallationOfAnotherUserIsLeftForANewIdNotRefusedForGood() async throws {
        let fixture = Self.fixture()
        // The store came back from another phone where u9 used this id.
        fixture.transport.answer { request in
            guard request.url.path.contains("inst-1") else { return HTTPResponseData(status: 204) }
            return HTTPResponseData(status: 403, body: Data(#"{"error":{"code":"installation_of_another_user","message":"this installation belongs to another user"}}"#.utf8))
        }
        try fixture.queue.set(Self.installation("u1"))
        try fixture.queue.set(QueueFixture.controls("c1"))
        let report = try await fixture.queue.sync()
        #expect(report.acknowledged == ["installation", "controls"])
        #expect(try fixture.queue.installationId() == "inst-2")
        #expect(try fixture.queue.state().lastError == nil)
    }

    @Test func aSwitchWithoutThePreviousUsersTokenSaysTheInstallationIsLeftToTheBackend() async throws {
        let fixture = Self.fixture()
        // Another process registered u1; this one never held u1's JWT.
        try fixture.queue.set(Self.installation("u1"))
        try fixture.queue.set(Self.installation("u2"))
        let report = try await fixture.queue.sync()
        #expect(report.errors.map(\.code) == ["abandoned_installation"])
        #expect(fixture.transport.sent == ["PUT installation"])
        #expect(try fixture.queue.state().abandonedInstallationIds == nil)
    }

    @Test func aProcessHoldingThePreviousUsersJWTFetchesTheNewUsersBeforeSending() async throws {
        // Two processes (the app, the widget extension) over one store; JWTs name their user in `sub`.
        let store = MemorySyncStore(installationId: "inst-1")
        let user = Box("u1")
        let transport = MemoryTransport()
        func process() -> SyncQueue {
            var configuration = SyncQueue.Configuration(baseURL: URL(string: "http://signalbox.test")!, appId: "app-1")
            configuration.makeInstallationId = { "inst-2" }
            let credentials = DeviceCredentials {
                let claims = Data(#"{"sub":"\#(user.withLock { $0 })","exp":4102444800}"#.utf8).base64EncodedString()
                    .replacingOccurrences(of: "=", with: "")
                return DeviceCredential(token: "e30.\(claims).sig")
            }
            return SyncQueue(configuration: configuration, store: store, credentials: credentials, transport: transport)
        }
        let (app, widgets) = (process(), process())
        try app.set(Self.installation("u1"))
        try await app.sync()
        try widgets.set(QueueFixture.controls("c1"))
        try await widgets.sync()   // the widget extension now caches u1's JWT
        user.withLock { $0 = "u2" }
        try app.set(Self.installation("u2"))
        try await app.sync()
        try widgets.set(QueueFixture.controls("c2"))
        try await widgets.sync()
        let subjects = transport.requests.map { request in
            request.headers["Authorization"].flatMap { DeviceCredential(token: String($0.dropFirst("Bearer ".count))).subject }
        }
        #expect(transport.sent.suffix(2) == ["PUT installation", "PUT controls"] || transport.sent.suffix(1) == ["PUT controls"])
        #expect(subjects.last == "u2", "the widget extension fetched u2's JWT instead of sending u1's")
        #expect(try store.update { $0.installationId } == "inst-2")
    }

    @Test func aPlainForbiddenIsStillFinal() async throws {
        let fixture = Self.fixture()
        fixture.transport.answer { _ in HTTPResponseData(status: 403, body: Data(#"{"error":{"code":"channel_not_allowed","message":"no"}}"#.utf8)) }
        try fixture.queue.set(Self.installation("u1"))
        let report = try await fixture.queue.sync()
        #expect(report.errors.map(\.code) == ["channel_not_allowed"])
        #expect(try fixture.queue.installationId() == "inst-1")
    }

    @Test func anInvalidatedFileProviderTokenIsDeletedOnTheServerOnce() async throws {
        let fixture = Self.fixture()
        try fixture.queue.set(Self.installation("u1"))
        try fixture.queue.set(.fileProvider(FileProviderRequest(pushToken: "f0", domains: [FileProviderDomain(id: "acct", replicated: false)])))
        try await fixture.queue.sync()
        fixture.transport.clear()
        try fixture.queue.set(.fileProviderGone)
        try await fixture.queue.sync()
        #expect(fixture.transport.sent == ["DELETE file-provider"])
        #expect(fixture.transport.requests[0].url.query == "revision=3")
        #expect(try fixture.queue.state().entries["file-provider"] == nil, "a removal done is forgotten")
    }
}
