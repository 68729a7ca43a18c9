"""Reading a student's submission -- a folder or an archive -- as hostile input.

Only the files that hold student regions are taken, by name, and nothing is ever extracted to
disk: each wanted member is read into memory up to a size cap. Regular files only (no links, no
devices); a folder's files must stay inside it. macOS Finder litter (__MACOSX/, ._*, .DS_Store)
is ignored and Windows backslashes are read as folder separators. A wanted file is found at its
own path under any number of leading folders, or else anywhere by its name when only one file
has that name. Anything that goes wrong while reading (a corrupt, truncated, encrypted or
oversized archive) makes the submission unreadable, and only it.
"""
import os
import stat
import tarfile
import zipfile

MAX_FILE_BYTES = 1 << 20      # a region file larger than this is not a kernel file
MAX_MEMBERS = 100_000         # entries looked at in one archive or folder
MAX_ARCHIVE_BYTES = 4 << 30   # declared bytes walked over in a tar stream (bounds a gzip bomb's work)


class Unreadable(Exception):
    pass


def _ignored(name):
    parts = name.split("/")
    return "__MACOSX" in parts or parts[-1].startswith("._") or parts[-1] == ".DS_Store"


def _normal(name):
    name = name.replace("\\", "/")
    while name.startswith("./") or name.startswith("/"):
        name = name[2:] if name.startswith("./") else name[1:]
    return name


def match(names, wanted):
    """{wanted path: member name}: the member at that path under any leading folders (the
    shortest such), else the only member with that file name."""
    found = {}
    for rel in wanted:
        at_path = [n for n in names if n == rel or n.endswith("/" + rel)]
        if at_path:
            found[rel] = min(at_path, key=len)
            continue
        base = rel.rsplit("/", 1)[-1]
        by_name = [n for n in names if n.rsplit("/", 1)[-1] == base]
        if len(by_name) == 1:
            found[rel] = by_name[0]
    return found


def _check_size(name, size):
    if size > MAX_FILE_BYTES:
        raise Unreadable(f"{name} is {size} bytes (at most {MAX_FILE_BYTES} are read)")


def _from_zip(path, wanted):
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
        if len(infos) > MAX_MEMBERS:
            raise Unreadable(f"the archive has more than {MAX_MEMBERS} entries")
        regular = {}
        for info in infos:
            name = _normal(info.filename)
            mode = info.external_attr >> 16
            if info.is_dir() or _ignored(name) or (stat.S_IFMT(mode) and not stat.S_ISREG(mode)):
                continue  # folders, Finder litter, symbolic links and other special entries
            regular.setdefault(name, info)
        out = {}
        for rel, name in match(list(regular), wanted).items():
            info = regular[name]
            _check_size(name, info.file_size)
            with z.open(info) as f:
                data = f.read(MAX_FILE_BYTES + 1)
            _check_size(name, len(data))
            out[rel] = data
        return out


def _from_tar(path, wanted):
    with tarfile.open(path, "r:*") as t:
        regular, walked, count = {}, 0, 0
        for m in t:
            count += 1
            walked += max(m.size, 0)
            if count > MAX_MEMBERS or walked > MAX_ARCHIVE_BYTES:
                raise Unreadable("the archive is too large")
            name = _normal(m.name)
            if m.isreg() and not _ignored(name):
                regular.setdefault(name, m)
        out = {}
        for rel, name in match(list(regular), wanted).items():
            m = regular[name]
            _check_size(name, m.size)
            f = t.extractfile(m)
            data = f.read(MAX_FILE_BYTES + 1)
            _check_size(name, len(data))
            out[rel] = data
        return out


def _from_folder(path, wanted):
    top = os.path.realpath(path)
    regular, count = {}, 0
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for n in filenames:
            count += 1
            if count > MAX_MEMBERS:
                raise Unreadable(f"the folder has more than {MAX_MEMBERS} files")
            full = os.path.join(dirpath, n)
            st = os.lstat(full)
            real = os.path.realpath(full)
            if not stat.S_ISREG(st.st_mode) or not (real == top or real.startswith(top + "/")):
                continue  # links (to the solutions, say) and anything that leaves the folder
            name = os.path.relpath(full, top).replace(os.sep, "/")
            if not _ignored(name):
                regular[name] = full
    out = {}
    for rel, name in match(list(regular), wanted).items():
        full = regular[name]
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                continue
            data = f.read(MAX_FILE_BYTES + 1)
        _check_size(name, len(data))
        out[rel] = data
    return out


def read(path, wanted):
    """{relative path: bytes} of the wanted files found in the submission at `path`.
    Raises Unreadable, with the reason, for anything that cannot be read."""
    try:
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode):
            return _from_folder(path, wanted)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable(f"{path} is neither a folder nor a file")
        if zipfile.is_zipfile(path):
            return _from_zip(path, wanted)
        if tarfile.is_tarfile(path):
            return _from_tar(path, wanted)
        raise Unreadable(f"{os.path.basename(path)} is neither a folder nor a .zip/.tar archive")
    except Unreadable:
        raise
    except Exception as e:  # noqa: BLE001 -- any failure of a hostile archive is that archive's
        raise Unreadable(f"cannot read {os.path.basename(path)}: {type(e).__name__}: {e}") from e
