# bash completion for cipherdex (installed by `make install` to
# $PREFIX/share/bash-completion/completions/cipherdex)
_cipherdex() {
    local cur prev words cword
    _init_completion 2>/dev/null || { cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"; cword=$COMP_CWORD; words=("${COMP_WORDS[@]}"); }
    local commands="keygen create info verify key rekey delete export backup restore doc attach cat detach add index search status remove --help --version"
    local keys="--key-file --key-env --passphrase-file --passphrase-env --ask-passphrase --recovery-key-file --ask-recovery-key"
    if [[ $cword -eq 1 ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
        return
    fi
    case "$prev" in
        --key-file|--passphrase-file|--new-key-file|--new-passphrase-file|--recovery-key-file|--out|--passwords|--password-file)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --key-env|--passphrase-env|--new-key-env|--new-passphrase-env)
            COMPREPLY=($(compgen -v -- "$cur")); return ;;
    esac
    local options="$keys --help"
    case "${words[1]}" in
        doc) [[ $cword -eq 2 ]] && { COMPREPLY=($(compgen -W "put get rm find" -- "$cur")); return; }
             options+=" --where --limit --json" ;;
        info|verify|status) options+=" --json" ;;
        key) [[ $cword -eq 2 ]] && { COMPREPLY=($(compgen -W "add list remove" -- "$cur")); return; }
             options+=" --new-key-file --new-key-env --new-passphrase-file --new-passphrase-env --new-ask-passphrase --recovery --label --kdf-seconds --slot --json" ;;
        rekey) options+=" --new-key-file --new-key-env --new-passphrase-file --new-passphrase-env --new-ask-passphrase" ;;
        delete|export|restore) options+=" --yes" ;;
        attach) options+=" --doc --json" ;;
        cat) options+=" --range" ;;
        add) options+=" --uid --passwords --password-file" ;;
        index) options+=" --ext --passwords --password-file" ;;
        search) options+=" --exact-words --exact-phrases --no-annotations --annotations-only --limit --per-document --previews --no-previews --json" ;;
        create) options+=" --plaintext --kdf-seconds" ;;
        keygen) options="--out --help" ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -F _cipherdex cipherdex
