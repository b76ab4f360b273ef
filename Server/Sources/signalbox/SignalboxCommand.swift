import ArgumentParser

@main
struct SignalboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signalbox",
        abstract: "A push server that keeps iOS widgets, controls and File Provider domains fresh.",
        subcommands: [ServeCommand.self, AppsCommand.self, TokensCommand.self, SimulateAPNsCommand.self, SimulateDeviceCommand.self, SendCommand.self]
    )
}
