import ArgumentParser

/// Subcommands contributed by the other jobs' modules.
enum ExtraCommands {
    static let all: [any ParsableCommand.Type] = [ChannelAuthCommand.self, UserAuthCommand.self, LoginCommand.self, SessionCommand.self, ServeCommand.self, ListenCommand.self]
}
