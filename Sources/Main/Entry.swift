import GatherApp

/// The `gather` executable: only the entry point. Everything it composes is the `GatherApp`
/// library, which `AppTests` test.
@main
enum Gather {
    static func main() { GatherEntry.main() }
}
