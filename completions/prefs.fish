# fish completion for prefs: verbs, options, type flags, suite names and the keys of the named suite.
# Install it in ~/.config/fish/completions/.
#
# Suite names and keys are data: they may hold spaces, quotes, (...), $ or newlines. They come from
# prefs NUL-separated (--null) and are split with string split0 as the last step of each command
# substitution, so fish takes each one whole and escapes it for the command line. Two things fish
# does not let a completion script do: a candidate's first tab starts its description, so a key
# holding a tab is left out; and a leading ~ is inserted unescaped (fish-shell#4570), where it would
# expand to a home directory, so a key starting with ~ is offered only once the token typed starts
# with an escaped or quoted ~ (\~, '~ or "~). A name prefs would take for an option (-0, or one
# starting with --) is offered only after a --.
set -g __prefs_scalars -string -int -integer -float -bool -boolean -date -data -json
set -l verbs read read-type write delete rename register reset domains find lint export import migrate dump load watch exec edit describe check gc help

# The words typed before the cursor, without the options before the verb (--store URL,
# -currentHost, -host NAME).
function __prefs_words
    set -l words (commandline -opc)
    while test (count $words) -gt 1
        switch $words[2]
            case '--store=*' -currentHost
                set -e words[2]
            case --store -host
                set -e words[2..3]
            case '*'
                break
        end
    end
    printf '%s\n' $words
end

# The options typed before the verb, for the prefs calls that list names.
function __prefs_store
    set -l words (commandline -opc)
    set -e words[1]
    while set -q words[1]
        switch $words[1]
            case '--store=*' -currentHost
                printf '%s\n' $words[1]
                set -e words[1]
            case --store -host
                set -q words[2]; or break
                printf '%s\n' $words[1..2]
                set -e words[1..2]
            case '*'
                break
        end
    end
end

# A -- has been typed after the verb (exec: what follows is the COMMAND).
function __prefs_after_dashdash
    contains -- -- (__prefs_words)[3..-1]
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

# The operands typed after the verb, NUL-separated: options and the values of the options that take
# one left out (--keys takes one for export and migrate, not for read); all words after --.
function __prefs_operands
    set -l words (__prefs_words)
    set -l verb $words[2]
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
        else if contains -- $w --format --defaults --if-equals --delete --from --bool-keys --rename --timeout --grace --schema --exec --match
            set skip 1
        else if test "$w" = --keys; and test "$verb" != read
            set skip 1
        else if test "$w" = --default
            # [TYPE] VALUE: a scalar type flag takes the word after it too.
            if contains -- "$words[1]" $__prefs_scalars; and set -q words[2]
                set -e words[1]
            end
            set skip 1
        else if test "$w" = -0; and contains -- $verb read domains find
            continue
        else if test "$w" = -h
            continue
        else if not string match -q -- '--*' $w
            printf '%s\0' $w
        end
    end
end

# The verb is one of the space-separated $verbs and $n operands are typed.
function __prefs_position -a verbs n
    __prefs_verb (string split ' ' $verbs); or return 1
    test (count (__prefs_operands | string split0)) -eq $n
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

# For --keys and --bool-keys: the stored keys of export's DOMAIN or migrate's SOURCE after the items
# of the comma-separated list already typed, NUL-separated.
function __prefs_key_list
    set -l operands (__prefs_operands | string split0)
    set -l from $operands[1]
    __prefs_verb migrate; and set from $operands[2]
    test -n "$from"; or return
    set -l head (commandline -ct | string unescape | string replace -r '[^,]*$' '')
    __prefs_offerable "$head" (prefs (__prefs_store) read --stored --keys --null -- $from 2>/dev/null | string split0)
end

# The choices the schema of the suite named gives the key being written a value: the operand
# before the cursor, or the one before a scalar type flag (prefs describe --choices), NUL-separated.
function __prefs_choices
    set -l operands (__prefs_operands | string split0)
    set -l key $operands[-1]
    string match -qr -- '^-(string|int|integer|float|date|data)$' "$key"; and set key $operands[-2]
    test -n "$operands[1]"; and test -n "$key"; or return
    prefs (__prefs_store) describe --choices --null -- $operands[1] $key 2>/dev/null
end

# The word before the cursor is $argv[1].
function __prefs_after -a option
    set -l words (__prefs_words)
    test "$words[-1]" = $option
end

# The cursor is on read's --default value: after --default, or after --default and a scalar type flag.
function __prefs_in_default
    set -l words (__prefs_words)
    test "$words[-1]" = --default; or begin; test "$words[-2]" = --default; and contains -- "$words[-1]" $__prefs_scalars; end
end

# The word before the cursor is -bool or -boolean.
function __prefs_after_bool
    set -l words (__prefs_words)
    string match -q -- '-bool*' $words[-1]
end

complete -c prefs -f
complete -c prefs -n "__prefs_no_verb" -a read -d 'print a value, a suite, or every suite'
complete -c prefs -n "__prefs_no_verb" -a read-type -d 'print the type of a value'
complete -c prefs -n "__prefs_no_verb" -a write -d 'set values'
complete -c prefs -n "__prefs_no_verb" -a delete -d 'remove a key, or the whole suite'
complete -c prefs -n "__prefs_no_verb" -a rename -d 'move a value to a new key'
complete -c prefs -n "__prefs_no_verb" -a register -d 'record registered defaults'
complete -c prefs -n "__prefs_no_verb" -a reset -d 'remove stored values so the registered defaults show again'
complete -c prefs -n "__prefs_no_verb" -a domains -d 'list the suites'
complete -c prefs -n "__prefs_no_verb" -a find -d 'find suites, keys and string values'
complete -c prefs -n "__prefs_no_verb" -a lint -d 'check property-list and JSON files'
complete -c prefs -n "__prefs_no_verb" -a export -d 'write a suite or a file in another format'
complete -c prefs -n "__prefs_no_verb" -a import -d 'merge a plist or JSON dictionary into a suite'
complete -c prefs -n "__prefs_no_verb" -a migrate -d 'bring settings in from a file or a suite, with a report'
complete -c prefs -n "__prefs_no_verb" -a dump -d 'write every suite as one lossless document, for load (a backup)'
complete -c prefs -n "__prefs_no_verb" -a load -d 'restore what dump wrote, each suite all or nothing, with a report'
complete -c prefs -n "__prefs_no_verb" -a watch -d 'print each change of a suite\'s values as it happens'
complete -c prefs -n "__prefs_no_verb" -a exec -d 'run a command with the suites\' values in its environment'
complete -c prefs -n "__prefs_no_verb" -a describe -d 'print a suite\'s schema'
complete -c prefs -n "__prefs_no_verb" -a check -d 'verify the external values of suites'
complete -c prefs -n "__prefs_no_verb" -a gc -d 'remove orphan blobs from external storage'
complete -c prefs -n "__prefs_no_verb" -a help -d 'show help for prefs or for one verb'
complete -c prefs -n "__prefs_no_verb" -l help -s h -d 'show help'
complete -c prefs -n "__prefs_no_verb" -l version -d 'print the version'
complete -c prefs -n "__prefs_no_verb" -l store -x -d 'keep suites in etcd: etcd:// or etcds://HOST:PORT[,HOST:PORT...][/PREFIX]'
complete -c prefs -n "__prefs_no_verb" -o currentHost -d 'the ByHost suites of this machine'
complete -c prefs -n "__prefs_no_verb" -o host -x -d 'the ByHost suites of host NAME'

complete -c prefs -n "__prefs_position 'read read-type write delete rename export register reset import migrate watch describe' 0" -a "(__prefs_suites | string split0)" -d suite
complete -c prefs -n "__prefs_position 'read read-type write delete rename register describe' 1; and not __prefs_after --if-equals; and not __prefs_after --delete; and not __prefs_after --schema; and not __prefs_in_default" -a "(__prefs_keys | string split0)" -d key
complete -c prefs -n "__prefs_position register 1; and not __prefs_after --delete; and not __prefs_after --schema" -F
complete -c prefs -n "__prefs_verb reset; and not __prefs_position reset 0" -a "(__prefs_keys --stored | string split0)" -d 'stored key'
complete -c prefs -n "__prefs_verb delete; and not __prefs_position delete 0; and not __prefs_position delete 1" -a "(__prefs_keys | string split0)" -d key
complete -c prefs -n "__prefs_verb write register; and not __prefs_position 'write register' 0; and not __prefs_position 'write register' 1; and not __prefs_after_bool; and not __prefs_after --if-equals; and not __prefs_after --delete; and not __prefs_after --schema" \
    -a "(__prefs_choices | string split0)" -d choice
complete -c prefs -n "__prefs_verb write register; and not __prefs_position 'write register' 0; and not __prefs_position 'write register' 1; and not __prefs_after_bool; and not __prefs_after --if-equals; and not __prefs_after --delete; and not __prefs_after --schema" \
    -a '-string -int -integer -float -bool -boolean -date -data -json -array -array-add -array-insert -dict -dict-add -int-add -float-add -string-file' -d type
complete -c prefs -n "__prefs_verb write register; and __prefs_after_bool" -a 'true false yes no' -d boolean
complete -c prefs -n "__prefs_verb read; and __prefs_after --default" -a "$__prefs_scalars" -d type
complete -c prefs -n "__prefs_verb read; and __prefs_in_default; and __prefs_after_bool" -a 'true false yes no' -d boolean
complete -c prefs -n "__prefs_verb read" -l json -d 'print JSON'
complete -c prefs -n "__prefs_verb read" -l keys -d 'print the keys, one per line'
complete -c prefs -n "__prefs_verb read" -l match -x -d 'with --keys, only the keys GLOB matches'
complete -c prefs -n "__prefs_verb read" -l raw -d 'print a string or data value\'s bytes exactly'
complete -c prefs -n "__prefs_verb read" -l format -x -a 'xml binary openstep json typed-json' -d 'write the value as a document'
complete -c prefs -n "__prefs_verb read export" -l lossy -d 'with JSON, write dates and data as strings'
complete -c prefs -n "__prefs_verb read export" -l compact -d 'write JSON on one line'
complete -c prefs -n "__prefs_verb read" -l default -x -d 'print VALUE ([TYPE] VALUE) when the key is absent'
complete -c prefs -n "__prefs_verb read read-type" -l origin -d 'say where each value came from'
complete -c prefs -n "__prefs_verb read read-type" -l stored -d 'only the stored values'
complete -c prefs -n "__prefs_verb read read-type export" -l defaults -r -F -d 'registered defaults for this run'
complete -c prefs -n "__prefs_verb find" -l json -d 'print the matches as JSON'
complete -c prefs -n "__prefs_verb find" -l compact -d 'print the JSON on one line'
complete -c prefs -n "__prefs_verb read domains find" -s 0 -l null -d 'end each name with NUL, not a newline'
complete -c prefs -n "__prefs_verb write delete rename register reset import migrate" -l exit-code -d 'exit 3 when something changed'
complete -c prefs -n "__prefs_verb write delete rename register reset import migrate" -l dry-run -d 'print what would change'
complete -c prefs -n "__prefs_verb write" -l if-absent -d 'skip the keys already stored'
complete -c prefs -n "__prefs_verb write" -l if-equals -x -d 'change only if the stored value is this'
complete -c prefs -n "__prefs_verb write" -l external -d 'keep the values in external storage'
complete -c prefs -n "__prefs_verb write" -l inline -d 'keep the values in the suite file'
complete -c prefs -n "__prefs_verb write; and __prefs_after -string-file" -F
complete -c prefs -n "__prefs_verb register" -l replace -d 'replace the whole registration'
complete -c prefs -n "__prefs_verb register" -l delete -x -a "(__prefs_keys | string split0)" -d 'remove a registered key'
complete -c prefs -n "__prefs_verb lint" -F
complete -c prefs -n "__prefs_verb export" -F
complete -c prefs -n "__prefs_verb export" -l format -x -a 'xml binary openstep json typed-json sh env github' -d 'output format'
complete -c prefs -n "__prefs_verb export" -l keys -x -a "(__prefs_key_list | string split0)" -d 'only these keys'
complete -c prefs -n "__prefs_verb export" -l effective -d 'export what an application sees'
complete -c prefs -n "__prefs_position import 1" -F
complete -c prefs -n "__prefs_verb import" -l replace -d 'make the suite exactly the document'
complete -c prefs -n "__prefs_verb import" -l if-absent -d 'keep the keys already stored'
complete -c prefs -n "__prefs_verb import" -l format -x -a 'xml binary openstep json typed-json' -d 'read the document as'
complete -c prefs -n "__prefs_position migrate 1" -F -a "(__prefs_suites | string split0)" -d source
complete -c prefs -n "__prefs_verb migrate" -l from -x -a 'file ini env suite' -d 'what SOURCE is'
complete -c prefs -n "__prefs_verb migrate" -l keys -x -a "(__prefs_key_list | string split0)" -d 'only these keys'
complete -c prefs -n "__prefs_verb migrate" -l bool-keys -x -a "(__prefs_key_list | string split0)" -d 'make these keys booleans'
complete -c prefs -n "__prefs_verb migrate" -l rename -x -d 'store the key OLD as NEW (OLD=NEW)'
complete -c prefs -n "__prefs_verb migrate" -l infer-types -d 'strings that spell numbers or true/false become typed'
complete -c prefs -n "__prefs_verb migrate" -l decode-json-strings -d 'strings that are JSON objects or arrays become values'
complete -c prefs -n "__prefs_verb migrate" -l overwrite -d 'replace stored values that differ'
complete -c prefs -n "__prefs_verb migrate" -l skip-errors -d 'leave out the keys that fail'
complete -c prefs -n "__prefs_position 'dump load' 0" -F
complete -c prefs -n "__prefs_verb dump" -l registered -d 'include the user\'s registered defaults'
complete -c prefs -n "__prefs_verb load" -l dry-run -d 'print the report and change nothing'
complete -c prefs -n "__prefs_verb load" -l exit-code -d 'exit 3 when something changed'
complete -c prefs -n "__prefs_verb load" -l no-schema -d 'restore the values without checking them against the schemas'
complete -c prefs -n "__prefs_no_verb" -a edit -d 'edit a suite in $VISUAL or $EDITOR'
complete -c prefs -n "__prefs_position edit 0" -a "(__prefs_suites | string split0)" -d suite
complete -c prefs -n "__prefs_position edit 0" -F
complete -c prefs -n "__prefs_verb exec; and not __prefs_after_dashdash" -a "(__prefs_suites | string split0)" -d suite
complete -c prefs -n "__prefs_verb exec; and not __prefs_after_dashdash" -F
complete -c prefs -n "__prefs_verb exec; and not __prefs_after_dashdash" -l keys -x -d 'only these top-level keys'
complete -c prefs -n "__prefs_verb exec; and __prefs_after_dashdash" -a "(__fish_complete_subcommand --fcs-skip=(__prefs_dashdash_index))"
complete -c prefs -n "__prefs_position watch 0" -F
complete -c prefs -n "__prefs_verb watch; and not __prefs_position watch 0; and not __prefs_after --timeout; and not __prefs_after --exec" -a "(__prefs_keys | string split0)" -d key
complete -c prefs -n "__prefs_verb watch" -l json -d 'print each change as a JSON object on one line'
complete -c prefs -n "__prefs_verb watch" -l compact -d 'the same as --json'
complete -c prefs -n "__prefs_verb watch" -l exec -x -d 'run COMMAND after each change instead of printing it'
complete -c prefs -n "__prefs_verb watch" -l initial -d 'print the current values first'
complete -c prefs -n "__prefs_verb watch" -l once -d 'exit after the first change'
complete -c prefs -n "__prefs_verb watch" -l timeout -x -d 'stop after SECONDS (with --once: exit 1 if no change came)'
complete -c prefs -n "__prefs_verb check gc" -a "(__prefs_suites | string split0)" -d suite
complete -c prefs -n "__prefs_verb write rename import migrate check" -l schema -r -F -d 'check against this schema file'
complete -c prefs -n "__prefs_verb register" -l schema -r -F -d 'install this schema file'
complete -c prefs -n "__prefs_verb write rename import migrate register" -l no-schema -d 'store without checking the schema'
complete -c prefs -n "__prefs_verb describe" -l schema -r -F -d 'describe this schema file'
complete -c prefs -n "__prefs_verb describe" -l choices -d 'print only the values KEY may take'
complete -c prefs -n "__prefs_verb describe" -l null -d 'with --choices, end each value with NUL'
complete -c prefs -n "__prefs_verb gc" -l grace -x -d 'only blobs older than SECONDS'
complete -c prefs -n "__prefs_verb gc" -l dry-run -d 'print what would be removed'
complete -c prefs -n "__prefs_verb gc" -l exit-code -d 'exit 3 when something was removed'
complete -c prefs -n "__prefs_verb $verbs" -l help -d 'show help for the verb'
complete -c prefs -n "__prefs_verb help" -a "$verbs"
