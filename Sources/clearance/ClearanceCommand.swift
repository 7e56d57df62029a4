import ArgumentParser

/// `clearance`: the command-line face of Clearance.
@main
struct ClearanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clearance",
        abstract: "Authorize what your app does against a backend: API keys and tokens per endpoint, OAuth2 sessions, channel authorization.",
        subcommands: [
            DemoCommand.self, RequestCommand.self, LoginCommand.self, SessionCommand.self,
            ServeCommand.self, AppsCommand.self, ListenCommand.self, ChannelAuthCommand.self, UserAuthCommand.self, BenchCommand.self,
            BenchBroadcasterCommand.self,
            EntitlementsCommand.self,
            CustomerTokenCommand.self,
        ]
    )
}
