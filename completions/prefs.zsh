#compdef prefs
# zsh completion for prefs: verbs, options, type flags, suite names and the keys of the named suite.
# Install this file as _prefs in a directory of $fpath.

_prefs_suites() {
    local -a suites
    suites=(${(f)"$(prefs domains 2>/dev/null)"} -g NSGlobalDomain)
    _describe -t suites 'suite' suites
}

_prefs_keys() {
    local -a keys
    keys=(${(f)"$(prefs read "$1" --keys 2>/dev/null)"})
    compadd -a keys
}

_prefs() {
    local -a verbs types
    verbs=(
        'read:print a value, a suite, or every suite'
        'read-type:print the type of a value'
        'write:set values'
        'delete:remove a key, or the whole suite'
        'rename:move a value to a new key'
        'domains:list the suites'
        'find:find suites, keys and string values'
        'lint:check property-list and JSON files'
        'export:write a suite or a file in another format'
        'help:show help for prefs or for one verb'
    )
    types=(-string -int -integer -float -bool -boolean -date -data -json -array -array-add -dict -dict-add)
    if (( CURRENT == 2 )); then
        _describe -t verbs 'verb' verbs
        compadd -- --help -h --version
        return
    fi
    local verb=$words[2]
    # From here on the verb is the command word, so positions count from the first operand.
    shift words
    (( CURRENT-- ))
    case $verb in
        read)
            _arguments '--json[print JSON]' '--keys[print the keys, one per line]' '--help[show help]' \
                '1:domain:_prefs_suites' '2:key:->key' && return
            [[ $state == key ]] && _prefs_keys $words[2] ;;
        read-type)
            _arguments '--help[show help]' '1:domain:_prefs_suites' '2:key:->key' && return
            [[ $state == key ]] && _prefs_keys $words[2] ;;
        delete|rename)
            _arguments '--exit-code[exit 3 when something changed]' '--help[show help]' '1:domain:_prefs_suites' '2:key:->key' '*:key:->key' && return
            [[ $state == key ]] && _prefs_keys $words[2] ;;
        write)
            if [[ $PREFIX == --* ]]; then
                compadd -- --exit-code --help
            elif (( CURRENT == 2 )); then
                _prefs_suites
            elif (( CURRENT == 3 )); then
                _prefs_keys $words[2]
            elif [[ $PREFIX == -* ]]; then
                compadd -a types
            elif [[ $words[CURRENT-1] == -bool* ]]; then
                compadd true false yes no
            fi ;;
        find) _arguments '--json[print the matches as JSON]' '--help[show help]' '1:word:' ;;
        lint) _arguments '--help[show help]' '*:file:_files' ;;
        export)
            _arguments '--format[output format]:format:(xml binary openstep json typed-json)' '--help[show help]' \
                '1:domain:_prefs_suites' '2:output path:_files' ;;
        help) (( CURRENT == 2 )) && _describe -t verbs 'verb' verbs ;;
    esac
}

_prefs "$@"
