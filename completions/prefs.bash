# bash completion for prefs: verbs, options, type flags, suite names and the keys of the named suite.
# Source it, or install it as /usr/share/bash-completion/completions/prefs.

_prefs_suites() {
    prefs domains 2>/dev/null
    printf '%s\n' -g NSGlobalDomain
}

_prefs() {
    local cur prev verb i word
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    verb=${COMP_WORDS[1]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "read read-type write delete rename register reset domains find lint export import migrate watch check gc help --help -h --version" -- "$cur"))
        return
    fi
    # The operands typed so far (options and the values of the options that take one left out).
    local -a operands=()
    for ((i = 2; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            --format|--defaults|--if-equals|--delete|--from|--bool-keys|--rename|--timeout|--grace) ((i++)); continue ;;
            --keys) [ "$verb" = read ] || ((i++)); continue ;;  # a value for export and migrate
        esac
        [[ $word == --* ]] || operands+=("$word")
    done
    local position=${#operands[@]}
    local IFS=$'\n'
    case $prev in
        --format) COMPREPLY=($(compgen -W "$(printf '%s\n' xml binary openstep json typed-json)" -- "$cur")); return ;;
        --defaults) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --from) COMPREPLY=($(compgen -W "$(printf '%s\n' file ini env suite)" -- "$cur")); return ;;
        --keys|--bool-keys)
            # Comma-separated keys: of the DOMAIN for export, of the SOURCE (a suite or a plist or
            # JSON file) for migrate. (read's --keys takes no value.)
            if [ "$verb" != read ]; then
                local from=${operands[0]} head=
                [ "$verb" = migrate ] && from=${operands[1]}
                [[ $cur == *,* ]] && head=${cur%,*},
                [ -n "$from" ] && COMPREPLY=($(compgen -P "$head" -W "$(prefs read "$from" --stored --keys 2>/dev/null)" -- "${cur##*,}"))
                return
            fi ;;
        --if-equals|--rename|--timeout|--grace) return ;;
        --delete) [ "$position" -ge 1 ] && COMPREPLY=($(compgen -W "$(prefs read "${operands[0]}" --keys 2>/dev/null)" -- "$cur")); return ;;
    esac
    if [[ $cur == --* ]]; then
        case $verb in
            read) COMPREPLY=($(compgen -W "$(printf '%s\n' --json --keys --raw --null --origin --stored --defaults --help)" -- "$cur")) ;;
            read-type) COMPREPLY=($(compgen -W "$(printf '%s\n' --origin --stored --defaults --help)" -- "$cur")) ;;
            write) COMPREPLY=($(compgen -W "$(printf '%s\n' --exit-code --dry-run --if-absent --if-equals --external --inline --help)" -- "$cur")) ;;
            gc) COMPREPLY=($(compgen -W "$(printf '%s\n' --grace --dry-run --exit-code --help)" -- "$cur")) ;;
            delete|rename|reset) COMPREPLY=($(compgen -W "$(printf '%s\n' --exit-code --dry-run --help)" -- "$cur")) ;;
            register) COMPREPLY=($(compgen -W "$(printf '%s\n' --replace --delete --exit-code --dry-run --help)" -- "$cur")) ;;
            domains) COMPREPLY=($(compgen -W "$(printf '%s\n' --null --help)" -- "$cur")) ;;
            find) COMPREPLY=($(compgen -W "$(printf '%s\n' --json --null --help)" -- "$cur")) ;;
            export) COMPREPLY=($(compgen -W "$(printf '%s\n' --format --keys --effective --defaults --help)" -- "$cur")) ;;
            import) COMPREPLY=($(compgen -W "$(printf '%s\n' --replace --if-absent --format --dry-run --exit-code --help)" -- "$cur")) ;;
            migrate) COMPREPLY=($(compgen -W "$(printf '%s\n' --from --keys --bool-keys --rename --infer-types --decode-json-strings --overwrite --skip-errors --dry-run --exit-code --help)" -- "$cur")) ;;
            watch) COMPREPLY=($(compgen -W "$(printf '%s\n' --json --initial --once --timeout --help)" -- "$cur")) ;;
            *) COMPREPLY=($(compgen -W "--help" -- "$cur")) ;;
        esac
        return
    fi
    case $verb in
        read|read-type|write|delete|rename|export|register|reset)
            if [ "$position" -eq 0 ]; then
                # register and reset take a suite, never a file.
                COMPREPLY=($(compgen -W "$(_prefs_suites)" -- "$cur"))
                [ "$verb" = register ] || [ "$verb" = reset ] || COMPREPLY+=($(compgen -f -- "$cur"))
            elif [ "$verb" = reset ]; then
                COMPREPLY=($(compgen -W "$(prefs read "${operands[0]}" --stored --keys 2>/dev/null)" -- "$cur"))
            elif [ "$position" -eq 1 ] && [ "$verb" = register ]; then
                COMPREPLY=($(compgen -W "$(prefs read "${operands[0]}" --keys 2>/dev/null)" -- "$cur") $(compgen -f -- "$cur"))
            elif [ "$position" -eq 1 ] && [ "$verb" != export ]; then
                COMPREPLY=($(compgen -W "$(prefs read "${operands[0]}" --keys 2>/dev/null)" -- "$cur"))
            elif [ "$verb" = write ] || [ "$verb" = register ]; then
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "$(printf '%s\n' -string -int -integer -float -bool -boolean -date -data -json -array -array-add -dict -dict-add -int-add -float-add -string-file)" -- "$cur"))
                elif [[ $prev == -string-file ]] || [[ $prev == -data && $cur == @* ]]; then
                    [[ $cur == @* ]] && COMPREPLY=($(compgen -P @ -f -- "${cur#@}")) || COMPREPLY=($(compgen -f -- "$cur"))
                elif [[ $prev == -bool* ]]; then
                    COMPREPLY=($(compgen -W "$(printf '%s\n' true false yes no)" -- "$cur"))
                fi
            elif [ "$verb" = export ]; then
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            ;;
        import|migrate)
            # DOMAIN: a suite or a file; import's PATH: a file; migrate's SOURCE: a suite or a file.
            if [ "$position" -eq 0 ] || { [ "$position" -eq 1 ] && [ "$verb" = migrate ]; }; then
                COMPREPLY=($(compgen -W "$(_prefs_suites)" -- "$cur") $(compgen -f -- "$cur"))
            elif [ "$position" -eq 1 ]; then
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            ;;
        watch)
            # DOMAIN: a suite or a file; then any number of its keys.
            if [ "$position" -eq 0 ]; then
                COMPREPLY=($(compgen -W "$(_prefs_suites)" -- "$cur") $(compgen -f -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$(prefs read "${operands[0]}" --keys 2>/dev/null)" -- "$cur"))
            fi
            ;;
        check|gc) COMPREPLY=($(compgen -W "$(_prefs_suites)" -- "$cur")) ;;
        lint) COMPREPLY=($(compgen -f -- "$cur")) ;;
        help) [ "$position" -eq 0 ] && COMPREPLY=($(compgen -W "$(printf '%s\n' read read-type write delete rename register reset domains find lint export import migrate watch check gc help)" -- "$cur")) ;;
    esac
}
complete -o filenames -F _prefs prefs
