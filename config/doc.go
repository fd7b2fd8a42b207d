// Package config loads webgate's one configuration for the frontends: the
// hook binaries, the webgate CLI and the examples. Library packages never
// import it; the frontends load a [Config] once and hand plain structs and
// key pools down to the providers and policies.
//
// # Sources
//
// [Load] applies, each over the one before:
//
//  1. the defaults ([Default]);
//  2. one configuration file: the one [LoadOptions].ConfigFile or
//     WEBGATE_CONFIG names, else the first that exists of config.toml,
//     config.yaml, config.yml and config.json in $XDG_CONFIG_HOME/webgate
//     (default ~/.config/webgate). TOML, YAML and JSON are read with
//     koanf's parsers; the format follows the extension;
//  3. environment variables.
//
// Load reads only what [LoadOptions] hands it, so tests never touch the
// real environment; [LoadFromOS] passes the process environment and home
// directory, for mains.
//
// # Environment variables
//
// Every setting with a file key K has the variable WEBGATE_ followed by K
// upper-cased with dots turned into underscores: search.mode is
// WEBGATE_SEARCH_MODE, providers.tavily.keys is
// WEBGATE_PROVIDERS_TAVILY_KEYS. One exception reads better:
// routes.config is WEBGATE_TOOL_ROUTES. Lists of tables (docs.databases,
// routes.tool_routes) are accepted from a file only.
//
// The names the older Node hooks read keep working unchanged:
// TAVILY_API_KEY, EXA_API_KEY, WEBSEARCHAPI_API_KEY,
// CLAUDE_WEB_HOOKS_SEARCH_MODE, CLAUDE_WEB_HOOKS_SEARCH_TIMEOUT and the
// others listed in the README ([Settings] lists them too). When
// a WEBGATE_ variable and an older name are both set, the WEBGATE_ variable
// wins. A variable set to an empty or blank value counts as unset.
//
// # Values
//
// Durations are Go durations ("25s", "1m30s") or a bare number of seconds
// ("25", "2.5"), from files and variables alike; the older variables always
// held seconds. Booleans are true/false, 1/0, yes/no or on/off. Lists are
// comma-separated in variables and lists (or comma-separated strings) in
// files. Sizes are bytes or a number with KiB, MiB or GiB.
//
// # Problems
//
// An invalid value never stops loading: the setting keeps its earlier value
// and the problem is reported in an *[Error], one [Problem] per setting,
// naming the setting and where its value came from (the file and key, or
// the variable). Messages never repeat a value, since it might be a key.
// Hooks log the problems and carry on; the CLI's doctor shows them.
//
// # Keys
//
// Each provider's keys setting is a key, a "k1|k2" pool, or the path of a
// key file, read with provider.ParseKeys after expanding a leading "~/".
// [Config.KeyCount] says how many keys a provider has, [Config.Pool] builds
// its key pool, and [KeySpec] prints a path or "[redacted]", never a key.
package config
