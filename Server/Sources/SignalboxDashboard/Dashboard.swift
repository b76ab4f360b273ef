import Hummingbird
import SignalboxServer

/// The dashboard as the composition root hands it to `buildApplication`: its pages under `/dashboard`.
public struct Dashboard: RouterExtension {
    public init() {}

    public func add(to router: Router<BasicRequestContext>, dependencies: APIDependencies) {
        DashboardRoutes(dependencies: dependencies).add(to: router)
    }
}
