#compdef prefs
# zsh completion for prefs

_prefs() {
    local -a verbs formats
    verbs=(
        'lint:check that property-list and JSON files are well formed'
        'export:write a suite or a plist/JSON file in another format'
        'help:show help for prefs or for one verb'
    )
    formats=(xml binary openstep json typed-json)
    if (( CURRENT == 2 )); then
        _describe 'verb' verbs
        _arguments '--help[show help]' '-h[show help]' '--version[print the version]'
        return
    fi
    case $words[2] in
        lint) _arguments '--help[show help for lint]' '*:file:_files' ;;
        export) _arguments "--format[output format]:format:($formats)" '--help[show help for export]' \
            '1:domain:_files' '2:output path:_files' ;;
        help) _describe 'verb' verbs ;;
    esac
}

_prefs "$@"
