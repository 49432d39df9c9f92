#!/usr/bin/env python3
"""Every module of this package a target imports is a dependency it declares in Package.swift, so a layer's
imports are what the manifest says it uses. SwiftPM's own --explicit-target-dependency-import-check does not
catch a module reached only through another dependency on Linux (swiftlang/swift issue 70560; a three-target
package whose third target imports the first through the second builds clean with it), so this checks the
sources themselves.

Inside a target, folders depend one way: no two folders of one target use each other's top-level names
(types, protocols and functions declared at the start of a line, in code outside comments and strings).
The files in a target's own folder are the target itself, above and below its folders alike."""
import glob, os, re, unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)", re.M)


def manifest(text):
    """Each target's name, its folder and its declared dependencies; the system libraries' names."""
    targets = {}
    for m in re.finditer(r'\.(target|executableTarget|testTarget)\(name: "(\w+)"((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)', text):
        body = m.group(3)
        dependencies = re.search(r"dependencies: \[((?:[^\[\]]|\[[^\[\]]*\])*)\]", body)
        path = re.search(r'path: "([^"]+)"', body)
        targets[m.group(2)] = (path.group(1) if path else f"Sources/{m.group(2)}",
                               set(re.findall(r'"(\w+)"', dependencies.group(1))) if dependencies else set())
    system = set(re.findall(r'\.systemLibrary\(name: "(\w+)"', text))
    return targets, system


def undeclared(root):
    with open(os.path.join(root, "Package.swift")) as f:
        targets, system = manifest(f.read())
    modules = set(targets) | system
    found = {}
    for name, (path, dependencies) in targets.items():
        for source in glob.glob(os.path.join(root, path, "**", "*.swift"), recursive=True):
            with open(source) as f:
                for module in IMPORT.findall(f.read()):
                    if module in modules and module != name and module not in dependencies:
                        found.setdefault(name, set()).add(module)
    return targets, found


DECLARATION = re.compile(r"^(?:(?:public|package|internal|private|fileprivate|final|indirect)\s+)*"
                         r"(?:struct|class|enum|protocol|typealias|actor|func)\s+(\w+)", re.M)
NOISE = re.compile(r'//.*|"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"')


def two_way_folders(target):
    """Each pair of the target's folders that use each other's names, with one name each way."""
    sources = glob.glob(os.path.join(target, "*", "**", "*.swift"), recursive=True)
    folder = lambda path: os.path.relpath(path, target).split(os.sep)[0]
    texts = {}
    for path in sources:
        with open(path) as f:
            texts[path] = f.read()
    declared = {}
    for path, text in texts.items():
        for name in DECLARATION.findall(text):
            declared.setdefault(name, set()).add(folder(path))
    uses = {}
    for path, text in texts.items():
        for word in set(re.findall(r"\b[A-Za-z_]\w*\b", NOISE.sub(" ", text))):
            owners = declared.get(word, set())
            if len(owners) == 1 and folder(path) not in owners:
                uses.setdefault((folder(path), next(iter(owners))), word)
    return {(a, b): (uses[(a, b)], uses[(b, a)]) for (a, b) in uses if a < b and (b, a) in uses}


class Imports(unittest.TestCase):
    def test_every_imported_module_of_the_package_is_declared(self):
        targets, found = undeclared(ROOT)
        self.assertGreaterEqual(len(targets), 15)
        self.assertEqual(found, {}, "targets import modules they do not declare in Package.swift")

    def test_an_undeclared_import_is_found(self):
        import shutil, tempfile
        with tempfile.TemporaryDirectory() as scratch:
            shutil.copy(os.path.join(ROOT, "Package.swift"), scratch)
            folder = os.path.join(scratch, "Sources", "Reporting")
            os.makedirs(folder)
            with open(os.path.join(folder, "X.swift"), "w") as f:
                f.write("import Foundation\n@testable import DSP\nimport struct CKernels.Thing\n")
            _, found = undeclared(scratch)
            self.assertEqual(found, {"Reporting": {"DSP", "CKernels"}})


class Folders(unittest.TestCase):
    def test_no_two_folders_of_a_target_use_each_other(self):
        found = {os.path.basename(t): pairs for t in glob.glob(os.path.join(ROOT, "Sources", "*"))
                 if (pairs := two_way_folders(t))}
        self.assertEqual(found, {}, "folders that use each other (a name each way)")

    def test_a_two_way_pair_is_found(self):
        import tempfile
        with tempfile.TemporaryDirectory() as scratch:
            for folder, text in {"A": "public struct Seam {}\nfunc f(_ x: Engine) {}\n",
                                 "B": "// Seam in a comment\nfinal class Engine { let s = \"Seam\" }\n",
                                 "C": "struct Other { let e: Engine }\n"}.items():
                os.makedirs(os.path.join(scratch, folder))
                with open(os.path.join(scratch, folder, "X.swift"), "w") as f:
                    f.write(text)
            self.assertEqual(two_way_folders(scratch), {})
            with open(os.path.join(scratch, "B", "Y.swift"), "w") as f:
                f.write("extension Engine { var seam: Seam { Seam() } }\n")
            self.assertEqual(two_way_folders(scratch), {("A", "B"): ("Engine", "Seam")})


if __name__ == "__main__":
    unittest.main(verbosity=2)
