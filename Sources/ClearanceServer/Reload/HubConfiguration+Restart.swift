extension HubConfiguration {
    /// The members of `other` that differ from this running configuration's and that only a
    /// restart applies (a reload keeps the running values): `host`, `port`, `limits`, `metrics`.
    func restartMembers(comparedWith other: HubConfiguration) -> [String] {
        var members: [String] = []
        if host != other.host { members.append("host") }
        if port != other.port { members.append("port") }
        if limits != other.limits { members.append("limits") }
        if metrics != other.metrics { members.append("metrics") }
        return members
    }
}
