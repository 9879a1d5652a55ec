# bash completion for prefs
_prefs() {
    local cur prev verb
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    verb=${COMP_WORDS[1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "lint export help --help -h --version" -- "$cur"))
        return
    fi
    if [ "$prev" = "--format" ]; then
        COMPREPLY=($(compgen -W "xml binary openstep json typed-json" -- "$cur"))
        return
    fi
    case $verb in
        lint) COMPREPLY=($(compgen -W "--help" -- "$cur")) ;;
        export) COMPREPLY=($(compgen -W "--format --help" -- "$cur")) ;;
        help) COMPREPLY=($(compgen -W "lint export help" -- "$cur")); return ;;
    esac
    [[ $cur == -* ]] || COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -o filenames -F _prefs prefs
