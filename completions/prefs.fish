# fish completion for prefs: verbs, options, type flags, suite names, file names and the keys of the
# named suite. Install it in ~/.config/fish/completions/. Written by `prefs completion fish` from
# prefs's command table: generate it again rather than edit it.
#
# Suite names and keys are data: they may hold spaces, quotes, (...), $ or newlines. They come from
# prefs NUL-separated (--null) and are split with string split0 as the last step of each command
# substitution, so fish takes each one whole and escapes it for the command line. Two things fish
# does not let a completion script do: a candidate's first tab starts its description, so a key
# holding a tab is left out; and a leading ~ is inserted unescaped (fish-shell#4570), where it would
# expand to a home directory, so a key starting with ~ is offered only once the token typed starts
# with an escaped or quoted ~ (\~, '~ or "~). A name prefs would take for an option (-0, or one
# starting with --) is offered only after a --.

# The command table: the options before the verb that choose the suites (one word, or taking the
# next as their value), and the TYPE flags (those that take one VALUE, those whose VALUE may be a
# schema's choice, a boolean, a FILE or @FILE).
set -g __prefs_scope_words '--store=*' -currentHost
set -g __prefs_scope_pairs --store -host
set -g __prefs_types -string -int -integer -float -bool -boolean -date -data -json -string-file -array -array-add \
    -array-insert -dict -dict-add -int-add -float-add
set -g __prefs_scalars -string -int -integer -float -bool -boolean -date -data -json
set -g __prefs_choice_types -string -int -integer -float -date -data
set -g __prefs_bool_types -bool -boolean
set -g __prefs_file_types -string-file
set -g __prefs_at_file_types -data -json

# The verbs, each with what it does (NAME, a tab, DESCRIPTION).
function __prefs_verbs
    printf '%s\t%s\n' read 'print a value (a scalar bare, for $(...)), a suite, or every suite'
    printf '%s\t%s\n' read-type 'print the type of a value (string, integer, float, boolean, date...)'
    printf '%s\t%s\n' write 'set values, typed as defaults types them, in one locked write'
    printf '%s\t%s\n' delete 'remove keys (all or nothing), or the whole suite'
    printf '%s\t%s\n' rename 'move a value to a new key'
    printf '%s\t%s\n' register 'record registered defaults: values reads show while nothing is stored'
    printf '%s\t%s\n' reset 'remove stored values so the registered defaults show again'
    printf '%s\t%s\n' domains 'list the suites (those GLOB matches), one per line (NSGlobalDomain: the global suite)'
    printf '%s\t%s\n' find 'find suites, keys and string values that contain WORD'
    printf '%s\t%s\n' lint 'check property-list and JSON files, like plutil -lint'
    printf '%s\t%s\n' export 'write a suite or a file in another format'
    printf '%s\t%s\n' import 'merge a plist or JSON dictionary into a suite (or replace it), all or nothing'
    printf '%s\t%s\n' migrate 'bring settings in from a plist, JSON, INI or .env file or a suite, with a plan and a report'
    printf '%s\t%s\n' dump 'write every suite as one lossless document, for load (a backup)'
    printf '%s\t%s\n' load 'restore what dump wrote, each suite all or nothing, with a report'
    printf '%s\t%s\n' watch 'print each change of a suite\'s values (or of the KEYs) as it happens, or run COMMAND for it'
    printf '%s\t%s\n' exec 'run COMMAND with the suites\' values in its environment (a later DOMAIN wins)'
    printf '%s\t%s\n' lock 'run COMMAND holding the lock NAME of the store (75: not obtained; 78: lost, COMMAND stopped)'
    printf '%s\t%s\n' locks 'list the held locks of the store: NAME, user@host, pid, since, token (tab-separated)'
    printf '%s\t%s\n' history 'list the versions kept of a suite\'s changes, newest first: VERSION, time, user@host, verb, keys (tab-separated)'
    printf '%s\t%s\n' diff 'show what changed between two versions of a suite (V2: the newest)'
    printf '%s\t%s\n' rollback 'put a suite back as a version of its history left it (a new version; 4 if it moved meanwhile)'
    printf '%s\t%s\n' edit 'edit a suite\'s values in $VISUAL or $EDITOR (typed JSON), checked, no concurrent change lost'
    printf '%s\t%s\n' describe 'print a suite\'s schema: each key\'s type, default, range or choices, description and current origin'
    printf '%s\t%s\n' check 'verify the external values of suites: every blob present with its recorded size and SHA-256; list orphan blobs'
    printf '%s\t%s\n' gc 'remove expired values and orphan blobs'
    printf '%s\t%s\n' completion 'print the completion script for bash, zsh or fish'
    printf '%s\t%s\n' help 'show help for prefs or for one verb'
end

# __prefs_options VERB: each spelling of each of the verb's options, then what its value is: flag
# for none, or a kind as for operands (and key-list N: keys stored in operand N, comma-separated;
# typed: [TYPE] VALUE), followed by ... when the option may be repeated. It fails for a word that
# is no verb.
function __prefs_options -a verb
    switch $verb
        case read
            printf '%s\n' --json flag --keys flag --raw flag --match text --null flag -0 flag \
                --origin flag --stored flag --defaults file... \
                --format 'choice binary xml openstep json typed-json' --lossy flag --compact flag \
                --default typed --max-stale text --fallback-cache flag --help flag
        case read-type
            printf '%s\n' --origin flag --stored flag --defaults file... --help flag
        case write
            printf '%s\n' --exit-code flag --dry-run flag --if-absent flag --if-equals text \
                --external flag --inline flag --ttl text --expires-at text --schema file \
                --no-schema flag --fence text --help flag
        case delete reset
            printf '%s\n' --exit-code flag --dry-run flag --fence text --help flag
        case rename
            printf '%s\n' --exit-code flag --dry-run flag --fence text --schema file \
                --no-schema flag --help flag
        case register
            printf '%s\n' --replace flag --delete key... --schema file --no-schema flag \
                --exit-code flag --dry-run flag --fence text --help flag
        case domains
            printf '%s\n' --null flag -0 flag --help flag
        case find
            printf '%s\n' --json flag --compact flag --null flag -0 flag --expiring text --help flag
        case lint locks diff completion help
            printf '%s\n' --help flag
        case export
            printf '%s\n' --format 'choice binary xml openstep json typed-json sh env github' \
                --keys 'key-list 0...' --effective flag --defaults file... --lossy flag --compact flag \
                --max-stale text --fallback-cache flag --help flag
        case import
            printf '%s\n' --replace flag --if-absent flag \
                --format 'choice binary xml openstep json typed-json' --dry-run flag --exit-code flag \
                --schema file --no-schema flag --fence text --help flag
        case migrate
            printf '%s\n' --from 'choice file ini env suite' --keys 'key-list 1...' \
                --bool-keys 'key-list 1...' --rename text... --infer-types flag \
                --decode-json-strings flag --overwrite flag --skip-errors flag --dry-run flag \
                --exit-code flag --schema file --no-schema flag --fence text --help flag
        case dump
            printf '%s\n' --registered flag --help flag
        case load
            printf '%s\n' --dry-run flag --exit-code flag --no-schema flag --fence text --help flag
        case watch
            printf '%s\n' --json flag --compact flag --initial flag --once flag --timeout text \
                --retry-for text --exec text --help flag
        case exec
            printf '%s\n' --keys 'key-list 0...' --max-stale text --fallback-cache flag --help flag
        case lock
            printf '%s\n' --ttl text --wait text --no-wait flag --holders text -n text --help flag
        case history
            printf '%s\n' --json flag --compact flag --help flag
        case rollback
            printf '%s\n' --to text --exit-code flag --dry-run flag --fence text --help flag
        case edit
            printf '%s\n' --fence text --help flag
        case describe
            printf '%s\n' --schema file --choices flag --null flag --help flag
        case check
            printf '%s\n' --schema file --help flag
        case gc
            printf '%s\n' --grace text --dry-run flag --exit-code flag --help flag
        case '*'
            return 1
    end
end

# __prefs_operand_kinds VERB: what each operand of the verb is: suite, domain (a suite or a file),
# key, stored-key, key-or-file, value (a TYPE flag or VALUE after a KEY), file, verb, choice
# WORD..., text (nothing offered); the last, followed by ..., goes on.
function __prefs_operand_kinds -a verb
    switch $verb
        case read read-type history
            printf '%s\n' domain key
        case write
            printf '%s\n' domain key value...
        case delete watch
            printf '%s\n' domain key...
        case rename
            printf '%s\n' domain key text
        case register
            printf '%s\n' suite key-or-file value...
        case reset
            printf '%s\n' suite stored-key...
        case domains find locks
            printf '%s\n' text
        case lint
            printf '%s\n' file...
        case export import
            printf '%s\n' domain file
        case migrate
            printf '%s\n' domain domain
        case dump load
            printf '%s\n' file
        case exec
            printf '%s\n' domain...
        case lock
            printf '%s\n' text...
        case diff
            printf '%s\n' domain text text
        case rollback edit
            printf '%s\n' domain
        case describe
            printf '%s\n' suite key
        case check gc
            printf '%s\n' suite...
        case completion
            printf '%s\n' 'choice bash zsh fish'
        case help
            printf '%s\n' verb
        case '*'
            return 1
    end
end

# The operands of the verb $argv[1] end with -- COMMAND [ARG...].
function __prefs_runs_command
    contains -- $argv[1] watch exec lock
end

# $argv[1] matches one of the patterns that follow.
function __prefs_matches -a word
    for pattern in $argv[2..-1]
        string match -q -- $pattern $word; and return 0
    end
    return 1
end

# The words typed before the cursor, without the options before the verb that choose the suites.
function __prefs_words
    set -l words (commandline -opc)
    while test (count $words) -gt 1
        if __prefs_matches $words[2] $__prefs_scope_words
            set -e words[2]
        else if contains -- $words[2] $__prefs_scope_pairs
            set -e words[2..3]
        else
            break
        end
    end
    printf '%s\n' $words
end

# The options typed before the verb that choose the suites, for the prefs calls that list names.
function __prefs_store
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        if __prefs_matches $words[1] $__prefs_scope_words
            printf '%s\n' $words[1]
            set -e words[1]
        else if contains -- $words[1] $__prefs_scope_pairs; and set -q words[2]
            printf '%s\n' $words[1..2]
            set -e words[1..2]
        else
            break
        end
    end
end

# How many words come before the COMMAND of exec (up to and including --).
function __prefs_dashdash_index
    set -l words (commandline -opc)
    contains -i -- -- $words
end

# The verb typed is one of $argv.
function __prefs_verb
    set -l words (__prefs_words)
    contains -- "$words[2]" $argv
end

# No verb typed yet.
function __prefs_no_verb
    test (count (__prefs_words)) -eq 1
end

# What the verb's option spelled $argv[1] takes (flag: nothing), from the table that follows it
# (__prefs_options: spellings start with -, what they take never does); fails when it is none of them.
function __prefs_option_kind -a word
    string match -q -- '-*' $word; or return 1
    set -l i (contains -i -- $word $argv[2..-1]); or return 1
    string replace -r -- '\.\.\.$' '' $argv[(math $i + 2)]
end

# The operands typed after the verb, NUL-separated: options and their values left out; all words
# after --.
function __prefs_operands
    set -l words (__prefs_words)
    set -l options (__prefs_options $words[2])
    set -e words[1..2]
    set -l skip 0
    while set -q words[1]
        set -l w $words[1]
        set -e words[1]
        if test $skip = 1
            set skip 0
        else if test "$w" = --
            test (count $words) -gt 0; and printf '%s\0' $words
            return
        else if test "$w" != -h # help, anywhere before --
            set -l kind (__prefs_option_kind $w $options)
            if test "$kind" = typed
                # [TYPE] VALUE: a scalar type flag takes the word after it too.
                if contains -- "$words[1]" $__prefs_scalars; and set -q words[2]
                    set -e words[1]
                end
                set skip 1
            else if test -n "$kind"
                test "$kind" != flag; and set skip 1
            else if not string match -q -- '--*' $w
                printf '%s\0' $w
            end
        end
    end
end

# What the word being completed is: a kind of __prefs_operand_kinds, boolean (after a boolean TYPE
# flag), at-file (after -data or -json, a word starting with @), command (exec, after --);
# nothing where fish completes an option's value itself.
function __prefs_kind
    set -l words (__prefs_words)
    set -q words[2]; or return 1
    set -l verb $words[2]
    set -l options (__prefs_options $verb)
    set -l dashdash (contains -i -- -- $words[3..-1])
    if test -z "$dashdash"
        set -l kind (__prefs_option_kind $words[-1] $options)
        if test "$kind" = typed
            echo typed
            return
        else if test -n "$kind" -a "$kind" != flag
            return 1
        end
        # After a typed option's scalar TYPE (read --default -bool), the TYPE's VALUE.
        if set -q words[4]; and test "$(__prefs_option_kind $words[-2] $options)" = typed; and contains -- $words[-1] $__prefs_scalars
            contains -- $words[-1] $__prefs_bool_types; and echo boolean; or echo text
            return
        end
    else if __prefs_runs_command $verb
        test (math $dashdash + 2) -eq (count $words); and echo command; or echo file
        return
    end
    set -l kinds (__prefs_operand_kinds $verb)
    set -l count (count (__prefs_operands | string split0))
    set -l kind $kinds[(math $count + 1)]
    if test -z "$kind"; and string match -q -- '*...' $kinds[-1]
        set kind $kinds[-1]
    end
    set kind (string replace -r -- '\.\.\.$' '' $kind)
    if test "$kind" = value
        if contains -- $words[-1] $__prefs_file_types
            set kind file
        else if contains -- $words[-1] $__prefs_at_file_types; and string match -q -- '@*' (commandline -ct | string unescape)
            set kind at-file
        else if contains -- $words[-1] $__prefs_bool_types
            set kind boolean
        end
    end
    echo $kind
end

# The word being completed is of one of the kinds given (see __prefs_kind, which every condition
# asks: its answer is kept for the line it was found for).
function __prefs_is
    set -l line (commandline -c | string collect)
    if not set -q __prefs_kind_line; or test "$line" != "$__prefs_kind_line"
        set -g __prefs_kind_found (string split ' ' -- (__prefs_kind))
        set -g __prefs_kind_line $line
    end
    contains -- "$__prefs_kind_found[1]" $argv
end

# The words a word of kind choice may be.
function __prefs_choice_words
    printf '%s\n' $__prefs_kind_found[2..-1]
end

# Prints, NUL-separated, $argv[1] before each of the other arguments that fish can offer as it is
# (see above). Names go through arguments, never through a pipe, which string would split at
# newlines; they are looked at one by one only when one of them must be left out.
function __prefs_offerable -a head
    set -l names "$head"$argv[2..-1]
    set -q names[1]; or return
    set -l leave '*'\t'*'
    string match -qr -- '^(\\\\|\'|")~' "$(commandline -ct)"; or set -a leave '~*'
    contains -- -- (__prefs_words); or set -a leave '--*' -0 -h
    set -l some 0
    for pattern in $leave
        string match -q -- $pattern $names; and set some 1
    end
    if test $some = 0
        printf '%s\0' $names
        return
    end
    for name in $names
        set -l keep 1
        for pattern in $leave
            string match -q -- $pattern "$name"; and set keep 0
        end
        test $keep = 1; and printf '%s\0' "$name"
    end
end

# The suites, -g and NSGlobalDomain (which domains lists when the global suite holds values), once each.
function __prefs_suites
    set -l names (prefs (__prefs_store) domains --null 2>/dev/null | string split0)
    set -l global (contains -i -- NSGlobalDomain $names); and set -e names[$global]
    __prefs_offerable '' $names -g NSGlobalDomain
end

# The keys of the suite named (more arguments go to prefs read, e.g. --stored), NUL-separated.
function __prefs_keys
    set -l operands (__prefs_operands | string split0)
    test -n "$operands[1]"; or return
    __prefs_offerable '' (prefs (__prefs_store) read --keys --null $argv -- $operands[1] 2>/dev/null | string split0)
end

# For an option whose value is a comma-separated list of keys (key-list N): the keys stored in
# operand $argv[1] (0: the first) after the items already typed, NUL-separated.
function __prefs_key_list -a index
    set -l operands (__prefs_operands | string split0)
    set -l from $operands[(math $index + 1)]
    test -n "$from"; or return
    set -l head (commandline -ct | string unescape | string replace -r '[^,]*$' '')
    __prefs_offerable "$head" (prefs (__prefs_store) read --stored --keys --null -- $from 2>/dev/null | string split0)
end

# The choices the schema of the suite named gives the key being written a value: the operand
# before the cursor, or the one before a TYPE flag (prefs describe --choices), NUL-separated.
function __prefs_choices
    set -l operands (__prefs_operands | string split0)
    set -l key $operands[-1]
    contains -- "$key" $__prefs_choice_types; and set key $operands[-2]
    test -n "$operands[1]"; and test -n "$key"; or return
    prefs (__prefs_store) describe --choices --null -- $operands[1] $key 2>/dev/null
end

# For -data @FILE and -json @FILE: @ and the names of the files (a directory with a /) that start
# with what follows the @ typed, NUL-separated.
function __prefs_at_files
    set -l head (commandline -ct | string unescape | string sub -s 2)
    for file in "$head"*
        test -d "$file"; and set file "$file/"
        printf '@%s\0' "$file"
    end
end
complete -c prefs -f
complete -c prefs -n __prefs_no_verb -a '(__prefs_verbs)'
complete -c prefs -n '__prefs_no_verb' -l help -s h -d 'show this help (also -h)'
complete -c prefs -n '__prefs_no_verb' -l version -d 'print the version'
complete -c prefs -n '__prefs_no_verb' -l store -x -d 'before the verb: keep suites in etcd (etcd://HOST:PORT[,HOST:PORT...][/PREFIX], etcds://... for TLS; default $PREFS_STORE, else files)'
complete -c prefs -n '__prefs_no_verb' -o currentHost -d 'before the verb: the suites of this machine (ByHost; host ID $PREFS_HOST_ID, else /etc/machine-id)'
complete -c prefs -n '__prefs_no_verb' -o host -x -d 'before the verb: the suites of host NAME (ByHost)'

complete -c prefs -n '__prefs_is suite domain' -a '(__prefs_suites | string split0)' -d suite
complete -c prefs -n '__prefs_is file domain key-or-file' -F
complete -c prefs -n '__prefs_is key key-or-file' -a '(__prefs_keys | string split0)' -d key
complete -c prefs -n '__prefs_is stored-key' -a '(__prefs_keys --stored | string split0)' -d 'stored key'
complete -c prefs -n '__prefs_is value' -a '(__prefs_choices | string split0)' -d choice
complete -c prefs -n '__prefs_is value' -a '$__prefs_types' -d type
complete -c prefs -n '__prefs_is boolean' -a 'true false yes no' -d boolean
complete -c prefs -n '__prefs_is typed' -a '$__prefs_scalars' -d type
complete -c prefs -n '__prefs_is at-file' -a '(__prefs_at_files | string split0)'
complete -c prefs -n '__prefs_is verb' -a '(__prefs_verbs)'
complete -c prefs -n '__prefs_is choice' -a '(__prefs_choice_words)'
complete -c prefs -n '__prefs_is command' -a '(__fish_complete_subcommand --fcs-skip=(__prefs_dashdash_index))'

complete -c prefs -n '__prefs_verb read' -l json -d 'print JSON instead of the readable form'
complete -c prefs -n '__prefs_verb read' -l keys -d 'print the keys of the suite (or of the dictionary at KEY), one per line'
complete -c prefs -n '__prefs_verb read' -l raw -d 'print a string\'s or data value\'s bytes exactly, with no newline (an external one streams from its blob)'
complete -c prefs -n '__prefs_verb read' -l match -x -d 'with --keys, only the keys GLOB matches (* ? [...]; \\ escapes)'
complete -c prefs -n '__prefs_verb read' -l null -s 0 -d 'with --keys, end each key with a NUL byte instead of a newline'
complete -c prefs -n '__prefs_verb read read-type' -l origin -d 'say where each value came from: managed:FILE, stored, global, system:FILE, registered:FILE, command-line or schema:FILE'
complete -c prefs -n '__prefs_verb read read-type' -l stored -d 'only the suite\'s own stored values, no global suite or registered defaults'
complete -c prefs -n '__prefs_verb read read-type export' -l defaults -r -F -d 'registered defaults for this run only (a plist or JSON dictionary; repeatable, a later one wins)'
complete -c prefs -n '__prefs_verb read' -l format -x -a 'binary xml openstep json typed-json' -d 'write the value as a document: xml, binary, openstep, json or typed-json (as plutil -extract)'
complete -c prefs -n '__prefs_verb read export' -l lossy -d 'with JSON, write dates as ISO 8601 strings and data as base64 (else they are refused: JSON has no such types)'
complete -c prefs -n '__prefs_verb read find export watch history' -l compact -d 'print JSON on one line (given alone, it asks for JSON)'
complete -c prefs -n '__prefs_verb read' -l default -x -d 'print VALUE (typed as write types it: --default -int 30) when the key or suite is absent, exit 0'
complete -c prefs -n '__prefs_verb read export exec' -l max-stale -x -d 'on etcd, answer from this host\'s snapshot of the suite when the store confirmed it at most SECONDS ago, without asking the store'
complete -c prefs -n '__prefs_verb read export exec' -l fallback-cache -d 'on etcd, answer from this host\'s snapshot of the suite when no endpoint answers (one line on standard error says so); also PREFS_FALLBACK_CACHE=1'
complete -c prefs -n '__prefs_verb read read-type write delete rename register reset domains find lint export import migrate dump load watch exec lock locks history diff rollback edit describe check gc completion help' -l help -d 'show help for this verb'
complete -c prefs -n '__prefs_verb write delete rename register reset import migrate load rollback gc' -l exit-code -d 'exit 3 when something changed, 0 when everything was already so'
complete -c prefs -n '__prefs_verb write delete rename register reset import rollback' -l dry-run -d 'print what would change (+ added, - removed, ~ replaced) and change nothing'
complete -c prefs -n '__prefs_verb write' -l if-absent -d 'skip the keys that are already stored'
complete -c prefs -n '__prefs_verb write' -l if-equals -x -d 'change the key only if its stored value is VALUE (typed as the new value); else exit 4'
complete -c prefs -n '__prefs_verb write' -l external -d 'keep the values in external storage whatever their size'
complete -c prefs -n '__prefs_verb write' -l inline -d 'keep the values in the suite\'s file whatever their size'
complete -c prefs -n '__prefs_verb write' -l ttl -x -d 'the values expire after D (500ms, 10s, 15m, 1h; at most a week): then reads show the next layer'
complete -c prefs -n '__prefs_verb write' -l expires-at -x -d 'the values expire at DATE (ISO 8601, 2026-12-01T18:00:00Z): then reads show the next layer'
complete -c prefs -n '__prefs_verb write rename import migrate' -l schema -r -F -d 'check the values against the schema FILE instead of the suite\'s'
complete -c prefs -n '__prefs_verb write rename import migrate load' -l no-schema -d 'store the values without checking them against the suite\'s schema'
complete -c prefs -n '__prefs_verb write delete rename register reset import migrate load rollback edit' -l fence -x -d 'change only while the lock $PREFS_LOCK_NAME (or NAME:TOKEN) is held with TOKEN ($PREFS_LOCK_TOKEN); else exit 4'
complete -c prefs -n '__prefs_verb register' -l replace -d 'replace the whole registration instead of merging into it'
complete -c prefs -n '__prefs_verb register' -l delete -x -a '(__prefs_keys | string split0)' -d 'remove KEY, and the KEYs that follow it, from the registration (all or nothing)'
complete -c prefs -n '__prefs_verb register' -l schema -r -F -d 'install FILE (- for standard input) as the suite\'s schema, once checked whole'
complete -c prefs -n '__prefs_verb register' -l no-schema -d 'record the values without checking them against the suite\'s schema'
complete -c prefs -n '__prefs_verb domains' -l null -s 0 -d 'end each name with a NUL byte instead of a newline'
complete -c prefs -n '__prefs_verb find' -l json -d 'print the matches as JSON'
complete -c prefs -n '__prefs_verb find' -l null -s 0 -d 'end each match with a NUL byte instead of a newline'
complete -c prefs -n '__prefs_verb find' -l expiring -x -d 'only the stored keys that expire within D (500ms, 10s, 15m, 1h; at most a week), with their deadlines'
complete -c prefs -n '__prefs_verb export' -l format -x -a 'binary xml openstep json typed-json sh env github' -d 'xml, binary, openstep, json or typed-json (default: by PATH\'s ending, .json json, .plist and .xml xml, .env env, .sh sh; else json with --compact or --lossy, else xml); sh, env or github: the keys as environment variables'
complete -c prefs -n '__prefs_verb export' -l keys -x -a '(__prefs_key_list 0 | string split0)' -d 'only these keys (comma-separated KEYs or :key:paths; repeatable); as environment, the global suite\'s and deny-listed names too'
complete -c prefs -n '__prefs_verb export' -l effective -d 'export what an application sees (stored, global and registered values), not just the stored ones; as environment, not the global suite\'s'
complete -c prefs -n '__prefs_verb import' -l replace -d 'make the suite exactly the document (else merge key by key)'
complete -c prefs -n '__prefs_verb import' -l if-absent -d 'keep the keys that are already stored'
complete -c prefs -n '__prefs_verb import' -l format -x -a 'binary xml openstep json typed-json' -d 'read the document as FORMAT (default: by its content)'
complete -c prefs -n '__prefs_verb migrate' -l from -x -a 'file ini env suite' -d 'what SOURCE is: file (plist or JSON), ini, env or suite (default: by its name)'
complete -c prefs -n '__prefs_verb migrate' -l keys -x -a '(__prefs_key_list 1 | string split0)' -d 'only these keys (comma-separated KEYs or :key:paths; repeatable)'
complete -c prefs -n '__prefs_verb migrate' -l bool-keys -x -a '(__prefs_key_list 1 | string split0)' -d 'make these keys booleans from 0/1, yes/no, on/off, true/false (else an error)'
complete -c prefs -n '__prefs_verb migrate' -l rename -x -d 'store the key OLD as NEW (repeatable)'
complete -c prefs -n '__prefs_verb migrate' -l infer-types -d 'strings that spell integers, reals or true/false (from INI also yes/no, on/off; not an INI value in quotes) become typed'
complete -c prefs -n '__prefs_verb migrate' -l decode-json-strings -d 'strings that are a JSON object or array become that value'
complete -c prefs -n '__prefs_verb migrate' -l overwrite -d 'replace stored values that differ (else they are kept: skipped-conflict)'
complete -c prefs -n '__prefs_verb migrate' -l skip-errors -d 'leave out the keys that fail instead of failing the migration'
complete -c prefs -n '__prefs_verb migrate' -l dry-run -d 'print the report of what would happen and change nothing'
complete -c prefs -n '__prefs_verb dump' -l registered -d 'include the user\'s registered defaults (prefs register)'
complete -c prefs -n '__prefs_verb load' -l dry-run -d 'print the report of what would be restored and change nothing'
complete -c prefs -n '__prefs_verb watch' -l json -d 'print each change as a JSON object on one line'
complete -c prefs -n '__prefs_verb watch' -l initial -d 'print the current values first'
complete -c prefs -n '__prefs_verb watch' -l once -d 'exit after the first change'
complete -c prefs -n '__prefs_verb watch' -l timeout -x -d 'stop after SECONDS, a running COMMAND too (with --once: exit 1 if no change came)'
complete -c prefs -n '__prefs_verb watch' -l retry-for -x -d 'when the store (etcd) stops answering, wait for it at most SECONDS, then exit 69 (default: for ever)'
complete -c prefs -n '__prefs_verb watch' -l exec -x -d 'instead of printing, run COMMAND with /bin/sh -c once per committed change, as -- COMMAND [ARG...] runs its words'
complete -c prefs -n '__prefs_verb exec' -l keys -x -a '(__prefs_key_list 0 | string split0)' -d 'only these top-level keys, from whichever DOMAIN or layer has them, the global suite\'s and deny-listed names too (comma-separated; repeatable)'
complete -c prefs -n '__prefs_verb lock' -l ttl -x -d 'how long the lock outlives a holder that stops renewing it (etcd\'s lease; default 10s)'
complete -c prefs -n '__prefs_verb lock' -l wait -x -d 'wait at most this long for the lock, then exit 75 (default: as long as it takes)'
complete -c prefs -n '__prefs_verb lock' -l no-wait -d 'exit 75 at once when the lock is held'
complete -c prefs -n '__prefs_verb lock' -l holders -s n -x -d 'a semaphore: up to N hold the lock at once (every holder gives the same N; default 1)'
complete -c prefs -n '__prefs_verb history' -l json -d 'print the versions as JSON'
complete -c prefs -n '__prefs_verb rollback' -l to -x -d 'the version to put back (the first field of `prefs history`)'
complete -c prefs -n '__prefs_verb describe' -l schema -r -F -d 'describe the schema FILE instead of the suite\'s'
complete -c prefs -n '__prefs_verb describe' -l choices -d 'print only the values KEY may take, one per line (a boolean\'s: true and false)'
complete -c prefs -n '__prefs_verb describe' -l null -d 'with --choices, end each value with a NUL byte instead of a newline'
complete -c prefs -n '__prefs_verb check' -l schema -r -F -d 'check the stored values against the schema FILE instead of the suite\'s'
complete -c prefs -n '__prefs_verb gc' -l grace -x -d 'only values expired and blobs made longer than SECONDS ago (default 3600): a write in progress keeps its blob, a host whose clock is behind still sees its values'
complete -c prefs -n '__prefs_verb gc' -l dry-run -d 'print what would be removed and remove nothing'
