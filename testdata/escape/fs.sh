#!/bin/sh
# fs.sh OP ARGS... — one file system escape attempt, run inside the
# sandbox by the sandbox package tests. It exits non-zero when the
# attempt fails; the tests check the effect, not only the status.
set -u
op=$1
shift
case $op in
write) printf 'pwned\n' >"$1" ;;
append) printf 'pwned\n' >>"$1" ;;
read) cat -- "$1" ;;
remove) rm -f -- "$1" && [ ! -e "$1" ] ;;
rmdir) rm -rf -- "$1" && [ ! -e "$1" ] ;;
mkdir) mkdir -- "$1" ;;
rename) mv -- "$1" "$2" ;;
hardlink) ln -- "$1" "$2" && printf 'pwned\n' >"$2" ;;
symlink-write) ln -s -- "$1" "$2" && printf 'pwned\n' >"$2" ;;
truncate) truncate -s 0 -- "$1" ;;
fifo) mkfifo -- "$1" ;;
exec) "$@" ;;
*)
	echo "fs.sh: unknown op $op" >&2
	exit 2
	;;
esac
