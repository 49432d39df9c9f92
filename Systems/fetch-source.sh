# Sourced by Systems/*/install.sh: fetch_source LOCAL URL COMMIT FOLDER VARIABLE [PATH...] puts the source at COMMIT
# (only the PATHs inside it, when given) into
# FOLDER, from LOCAL when set (a git repository holding COMMIT, bare or not, or else a plain source folder,
# then recorded as unverified) or by cloning URL; sets fetched_commit. Without network and without LOCAL it
# says which variable to set and exits 3.
fetch_source() {
    local local_copy=$1 url=$2 commit=$3 folder=$4 variable=$5
    shift 5
    rm -rf "$folder" && mkdir -p "$folder"
    fetched_commit=$commit
    if [ -n "$local_copy" ]; then
        local gitdir
        for gitdir in "$local_copy" "$local_copy/.git"; do
            if git --git-dir="$gitdir" rev-parse -q --verify "$commit^{commit}" >/dev/null 2>&1; then
                git --git-dir="$gitdir" archive "$commit" -- "$@" | tar -x -C "$folder"
                return 0
            fi
        done
        echo "$local_copy does not hold commit $commit; building the folder as it is" >&2
        cp -r "$local_copy"/. "$folder"/
        fetched_commit="$commit-unverified"
    elif ! git clone -q "$url" "$folder" 2>/dev/null || ! git -C "$folder" checkout -q "$commit"; then
        echo "cannot reach $url; give a local copy: $variable=DIR $0" >&2
        exit 3
    fi
}
