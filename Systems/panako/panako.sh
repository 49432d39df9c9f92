#!/usr/bin/env bash
# Runs the Panako built by install.sh with the JVM settings it needs here (each found necessary by removing it):
# lmdbjava's reflective access to NIO buffers, Debian's liblmdb, the folder of JGaborator's JNI library and of
# jnr-ffi's native part, and a home folder per state folder (Panako keeps ~/.panako and writes its
# config.properties there). Usage: panako.sh STATE PANAKO-ARGUMENTS...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
state=$1; shift
mkdir -p "$state/home"
classpath=$here/installed/panako.jar:$(ls /usr/share/java/{reflections,slf4j-api,slf4j-nop,jnr-ffi,jnr-constants,jffi,asm,asm-commons,asm-tree,asm-util,asm-analysis,jnr-x86asm,javassist}.jar | paste -sd:)
exec java --add-opens=java.base/java.nio=ALL-UNNAMED --add-exports=java.base/sun.nio.ch=ALL-UNNAMED \
    -Dlmdbjava.native.lib=/usr/lib/x86_64-linux-gnu/liblmdb.so.0 \
    -Djava.library.path="$here/installed/lib:/usr/lib/x86_64-linux-gnu/jni" -Duser.home="$state/home" \
    -cp "$classpath" be.panako.cli.Panako "$@"
