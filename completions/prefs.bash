# bash completion for prefs: verbs, options, type flags, suite names and the keys of the named suite.
# Source it, or install it as /usr/share/bash-completion/completions/prefs.

_prefs_suites() {
    prefs domains 2>/dev/null
    printf '%s\n' -g NSGlobalDomain
}

_prefs() {
    local cur verb i word
    cur=${COMP_WORDS[COMP_CWORD]}
    verb=${COMP_WORDS[1]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "read read-type write delete rename domains find lint export help --help -h --version" -- "$cur"))
        return
    fi
    if [ "${COMP_WORDS[COMP_CWORD-1]}" = "--format" ]; then
        COMPREPLY=($(compgen -W "xml binary openstep json typed-json" -- "$cur"))
        return
    fi
    # The operands typed so far (options and the value of --format left out).
    local -a operands=()
    for ((i = 2; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [ "$word" = "--format" ]; then ((i++)); continue; fi
        [[ $word == --* ]] || operands+=("$word")
    done
    local position=${#operands[@]}
    if [[ $cur == --* ]]; then
        case $verb in
            read) COMPREPLY=($(compgen -W "--json --keys --help" -- "$cur")) ;;
            find) COMPREPLY=($(compgen -W "--json --help" -- "$cur")) ;;
            export) COMPREPLY=($(compgen -W "--format --help" -- "$cur")) ;;
            write|delete|rename) COMPREPLY=($(compgen -W "--exit-code --help" -- "$cur")) ;;
            *) COMPREPLY=($(compgen -W "--help" -- "$cur")) ;;
        esac
        return
    fi
    local IFS=$'\n'
    case $verb in
        read|read-type|write|delete|rename|export)
            if [ "$position" -eq 0 ]; then
                COMPREPLY=($(compgen -W "$(_prefs_suites)" -- "$cur") $(compgen -f -- "$cur"))
            elif [ "$position" -eq 1 ] && [ "$verb" != export ]; then
                COMPREPLY=($(compgen -W "$(prefs read "${operands[0]}" --keys 2>/dev/null)" -- "$cur"))
            elif [ "$verb" = write ] && [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "$(printf '%s\n' -string -int -integer -float -bool -boolean -date -data -json -array -array-add -dict -dict-add)" -- "$cur"))
            elif [ "$verb" = write ] && [[ ${COMP_WORDS[COMP_CWORD-1]} == -bool* ]]; then
                COMPREPLY=($(compgen -W "$(printf '%s\n' true false yes no)" -- "$cur"))
            elif [ "$verb" = export ]; then
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            ;;
        lint) COMPREPLY=($(compgen -f -- "$cur")) ;;
        help) [ "$position" -eq 0 ] && COMPREPLY=($(compgen -W "$(printf '%s\n' read read-type write delete rename domains find lint export help)" -- "$cur")) ;;
    esac
}
complete -o filenames -F _prefs prefs
