# fish completion for prefs
set -l verbs lint export help
complete -c prefs -f
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a lint -d 'check that property-list and JSON files are well formed'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a export -d 'write a suite or a plist/JSON file in another format'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a help -d 'show help for prefs or for one verb'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -l help -s h -d 'show help'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -l version -d 'print the version'
complete -c prefs -n "__fish_seen_subcommand_from lint" -F
complete -c prefs -n "__fish_seen_subcommand_from lint" -l help -d 'show help for lint'
complete -c prefs -n "__fish_seen_subcommand_from export" -F
complete -c prefs -n "__fish_seen_subcommand_from export" -l format -x -a 'xml binary openstep json typed-json' -d 'output format'
complete -c prefs -n "__fish_seen_subcommand_from export" -l help -d 'show help for export'
complete -c prefs -n "__fish_seen_subcommand_from help" -a "$verbs"
