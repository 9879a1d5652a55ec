# fish completion for prefs: verbs, options, type flags, suite names and the keys of the named suite.
# Install it in ~/.config/fish/completions/.
set -l verbs read read-type write delete rename register reset domains find lint export import migrate watch check gc help

# The operands typed after the verb, options and the values of the options that take one left out
# (--keys takes one for export and migrate, not for read).
function __prefs_operands
    set -l words (commandline -opc)
    set -l verb $words[2]
    set -e words[1..2]
    set -l out
    set -l skip 0
    for w in $words
        if test $skip = 1
            set skip 0
            continue
        end
        if contains -- $w --format --defaults --if-equals --delete --from --bool-keys --rename --timeout --grace
            set skip 1
        else if test "$w" = --keys; and test "$verb" != read
            set skip 1
        else if not string match -q -- '--*' $w
            set out $out $w
        end
    end
    test (count $out) -gt 0; and printf '%s\n' $out
end

function __prefs_position -a verbs n
    set -l words (commandline -opc)
    contains -- "$words[2]" (string split ' ' $verbs); or return 1
    test (count (__prefs_operands)) -eq $n
end

# The keys of the suite named (more arguments go to prefs read, e.g. --stored).
function __prefs_keys
    set -l operands (__prefs_operands)
    prefs read $operands[1] --keys $argv 2>/dev/null
end

# For --keys and --bool-keys: the stored keys of export's DOMAIN or migrate's SOURCE, after the
# items of the comma-separated list already typed.
function __prefs_key_list
    set -l words (commandline -opc)
    set -l operands (__prefs_operands)
    set -l from $operands[1]
    test "$words[2]" = migrate; and set from $operands[2]
    test -n "$from"; or return
    set -l token (commandline -ct)
    set -l head (string replace -r '[^,]*$' '' -- "$token")
    for key in (prefs read $from --stored --keys 2>/dev/null)
        printf '%s%s\n' $head $key
    end
end

# The word before the cursor is $argv[1].
function __prefs_after -a option
    set -l words (commandline -opc)
    test "$words[-1]" = $option
end

complete -c prefs -f
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a read -d 'print a value, a suite, or every suite'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a read-type -d 'print the type of a value'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a write -d 'set values'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a delete -d 'remove a key, or the whole suite'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a rename -d 'move a value to a new key'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a register -d 'record registered defaults'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a reset -d 'remove stored values so the registered defaults show again'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a domains -d 'list the suites'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a find -d 'find suites, keys and string values'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a lint -d 'check property-list and JSON files'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a export -d 'write a suite or a file in another format'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a import -d 'merge a plist or JSON dictionary into a suite'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a migrate -d 'bring settings in from a file or a suite, with a report'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a watch -d 'print each change of a suite\'s values as it happens'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a check -d 'verify the external values of suites'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a gc -d 'remove orphan blobs from external storage'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -a help -d 'show help for prefs or for one verb'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -l help -s h -d 'show help'
complete -c prefs -n "not __fish_seen_subcommand_from $verbs" -l version -d 'print the version'

complete -c prefs -n "__prefs_position 'read read-type write delete rename export register reset import migrate watch' 0" -a "(prefs domains 2>/dev/null; printf '%s\n' -g NSGlobalDomain)" -d suite
complete -c prefs -n "__prefs_position 'read read-type write delete rename register' 1; and not __prefs_after --if-equals; and not __prefs_after --delete" -a "(__prefs_keys)" -d key
complete -c prefs -n "__prefs_position register 1; and not __prefs_after --delete" -F
complete -c prefs -n "__fish_seen_subcommand_from reset; and not __prefs_position reset 0" -a "(__prefs_keys --stored)" -d 'stored key'
function __prefs_after_bool
    set -l words (commandline -opc)
    string match -q -- '-bool*' $words[-1]
end

complete -c prefs -n "__fish_seen_subcommand_from write register; and not __prefs_position 'write register' 0; and not __prefs_position 'write register' 1; and not __prefs_after_bool; and not __prefs_after --if-equals; and not __prefs_after --delete" \
    -a '-string -int -integer -float -bool -boolean -date -data -json -array -array-add -dict -dict-add -int-add -float-add -string-file' -d type
complete -c prefs -n "__fish_seen_subcommand_from write register; and __prefs_after_bool" -a 'true false yes no' -d boolean
complete -c prefs -n "__fish_seen_subcommand_from read" -l json -d 'print JSON'
complete -c prefs -n "__fish_seen_subcommand_from read" -l keys -d 'print the keys, one per line'
complete -c prefs -n "__fish_seen_subcommand_from read" -l raw -d 'print a string or data value\'s bytes exactly'
complete -c prefs -n "__fish_seen_subcommand_from read read-type" -l origin -d 'say where each value came from'
complete -c prefs -n "__fish_seen_subcommand_from read read-type" -l stored -d 'only the stored values'
complete -c prefs -n "__fish_seen_subcommand_from read read-type export" -l defaults -r -F -d 'registered defaults for this run'
complete -c prefs -n "__fish_seen_subcommand_from find" -l json -d 'print the matches as JSON'
complete -c prefs -n "__fish_seen_subcommand_from read domains find" -s 0 -l null -d 'end each name with NUL'
complete -c prefs -n "__fish_seen_subcommand_from write delete rename register reset import migrate" -l exit-code -d 'exit 3 when something changed'
complete -c prefs -n "__fish_seen_subcommand_from write delete rename register reset import migrate" -l dry-run -d 'print what would change'
complete -c prefs -n "__fish_seen_subcommand_from write" -l if-absent -d 'skip the keys already stored'
complete -c prefs -n "__fish_seen_subcommand_from write" -l if-equals -x -d 'change only if the stored value is this'
complete -c prefs -n "__fish_seen_subcommand_from write" -l external -d 'keep the values in external storage'
complete -c prefs -n "__fish_seen_subcommand_from write" -l inline -d 'keep the values in the suite file'
complete -c prefs -n "__fish_seen_subcommand_from write; and __prefs_after -string-file" -F
complete -c prefs -n "__fish_seen_subcommand_from register" -l replace -d 'replace the whole registration'
complete -c prefs -n "__fish_seen_subcommand_from register" -l delete -x -a "(__prefs_keys)" -d 'remove a registered key'
complete -c prefs -n "__fish_seen_subcommand_from lint" -F
complete -c prefs -n "__fish_seen_subcommand_from export" -F
complete -c prefs -n "__fish_seen_subcommand_from export" -l format -x -a 'xml binary openstep json typed-json' -d 'output format'
complete -c prefs -n "__fish_seen_subcommand_from export" -l keys -x -a "(__prefs_key_list)" -d 'only these keys'
complete -c prefs -n "__fish_seen_subcommand_from export" -l effective -d 'export what an application sees'
complete -c prefs -n "__prefs_position import 1" -F
complete -c prefs -n "__fish_seen_subcommand_from import" -l replace -d 'make the suite exactly the document'
complete -c prefs -n "__fish_seen_subcommand_from import" -l if-absent -d 'keep the keys already stored'
complete -c prefs -n "__fish_seen_subcommand_from import" -l format -x -a 'xml binary openstep json typed-json' -d 'read the document as'
complete -c prefs -n "__prefs_position migrate 1" -F -a "(prefs domains 2>/dev/null; printf '%s\n' -g NSGlobalDomain)" -d source
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l from -x -a 'file ini env suite' -d 'what SOURCE is'
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l keys -x -a "(__prefs_key_list)" -d 'only these keys'
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l bool-keys -x -a "(__prefs_key_list)" -d 'make these keys booleans'
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l rename -x -d 'store the key OLD as NEW (OLD=NEW)'
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l infer-types -d 'strings that spell numbers or true/false become typed'
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l decode-json-strings -d 'strings that are JSON objects or arrays become values'
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l overwrite -d 'replace stored values that differ'
complete -c prefs -n "__fish_seen_subcommand_from migrate" -l skip-errors -d 'leave out the keys that fail'
complete -c prefs -n "__prefs_position watch 0" -F
complete -c prefs -n "__fish_seen_subcommand_from watch; and not __prefs_position watch 0; and not __prefs_after --timeout" -a "(__prefs_keys)" -d key
complete -c prefs -n "__fish_seen_subcommand_from watch" -l json -d 'print each change as a JSON object on one line'
complete -c prefs -n "__fish_seen_subcommand_from watch" -l initial -d 'print the current values first'
complete -c prefs -n "__fish_seen_subcommand_from watch" -l once -d 'exit after the first change'
complete -c prefs -n "__fish_seen_subcommand_from watch" -l timeout -x -d 'stop after SECONDS (with --once: exit 1 if no change came)'
complete -c prefs -n "__fish_seen_subcommand_from check gc" -a "(prefs domains 2>/dev/null; printf '%s\n' -g NSGlobalDomain)" -d suite
complete -c prefs -n "__fish_seen_subcommand_from gc" -l grace -x -d 'only blobs older than SECONDS'
complete -c prefs -n "__fish_seen_subcommand_from gc" -l dry-run -d 'print what would be removed'
complete -c prefs -n "__fish_seen_subcommand_from gc" -l exit-code -d 'exit 3 when something was removed'
complete -c prefs -n "__fish_seen_subcommand_from $verbs" -l help -d 'show help for the verb'
complete -c prefs -n "__fish_seen_subcommand_from help" -a "$verbs"
