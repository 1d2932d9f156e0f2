"""Bots that are more than one file: hostile zips refused before anything is written, and (below) packages and
command bots, from a folder or a zip, added to a league and played."""

import stat
import zipfile
from pathlib import Path

import pytest

from arena.league.bundles import ArchiveLimits, check_archive, tree_hash, unpack
from arena.league.catalog import LeagueError

LIMITS = ArchiveLimits()


def entry(name: str, mode: int = stat.S_IFREG | 0o644) -> zipfile.ZipInfo:
    """A zip entry with a Unix mode (a symlink, a device, ...), as `zip -y` or a crafted zip records it."""
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = mode << 16
    return info


def hostile(path: Path, kind: str) -> Path:
    """A small zip with one bot file and one hostile entry of `kind`."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(entry("bot.toml"), 'command = "./mybot"\n')
        if kind == "slip":
            archive.writestr(entry("../evil"), "pwned")
        elif kind == "deep-slip":
            archive.writestr(entry("lib/../../evil"), "pwned")
        elif kind == "absolute":
            archive.writestr(entry("/etc/x"), "pwned")
        elif kind == "symlink":
            archive.writestr(entry("mybot", stat.S_IFLNK | 0o777), "/etc/passwd")
        elif kind == "device":
            archive.writestr(entry("tty", stat.S_IFCHR | 0o666), "")
        elif kind == "fifo":
            archive.writestr(entry("pipe", stat.S_IFIFO | 0o666), "")
        elif kind == "many":
            for i in range(LIMITS.files):
                archive.writestr(entry(f"f{i}"), "")
        elif kind == "bomb":  # zeros compress a thousandfold: a zip of 100 KiB that unpacks past the limit
            with archive.open(entry("zeros"), "w", force_zip64=True) as sink:
                block = bytes(1 << 20)
                for _ in range((LIMITS.unpacked >> 20) + 1):
                    sink.write(block)
        elif kind == "lying":  # the same zeros, its directory saying they are 10 bytes
            with archive.open(entry("zeros"), "w", force_zip64=True) as sink:
                block = bytes(1 << 20)
                for _ in range((LIMITS.unpacked >> 20) + 1):
                    sink.write(block)
            archive.filelist[-1].file_size = 10
    if kind == "corrupt":
        data = bytearray(path.read_bytes())
        path.write_bytes(bytes(data[: len(data) // 2]))
    return path


REFUSALS = {
    "slip": "'../evil' climbs out of the folder (..)",
    "deep-slip": "'lib/../../evil' climbs out of the folder (..)",
    "absolute": "'/etc/x' is an absolute path",
    "symlink": "'mybot' is a symlink; a bot's zip holds plain files only",
    "device": "'tty' is not a plain file; a bot's zip holds plain files only",
    "fifo": "'pipe' is not a plain file; a bot's zip holds plain files only",
    "many": "1001 entries, more than 1000",
    "bomb": "unpacks to 101.0 MiB, more than 100.0 MiB",
    "corrupt": "not a readable zip",
}


@pytest.mark.parametrize("kind", list(REFUSALS))
def test_a_hostile_zip_is_refused_with_its_reason_and_nothing_unpacked(tmp_path, kind):
    path = hostile(tmp_path / "bot.zip", kind)
    with pytest.raises(LeagueError) as raised:
        check_archive(path, LIMITS)
    assert str(raised.value).startswith(f"bot.zip: {REFUSALS[kind]}")
    assert "\n" not in str(raised.value)
    with pytest.raises(LeagueError, match=REFUSALS[kind].replace("(", r"\(").replace(")", r"\)")):
        unpack(path, tmp_path / "out", LIMITS)
    assert not (tmp_path / "out").exists() and not (tmp_path.parent / "evil").exists()


def test_a_zip_whose_directory_lies_about_its_size_stops_at_what_it_declared(tmp_path):
    """Its directory passes the check (10 bytes declared); unpacking stops there, nothing is left behind."""
    path = hostile(tmp_path / "bot.zip", "lying")
    check_archive(path, LIMITS)
    with pytest.raises(LeagueError, match="bot.zip: a damaged zip"):
        unpack(path, tmp_path / "out", LIMITS)
    assert not (tmp_path / "out").exists()


def test_unpacking_counts_the_bytes_it_writes(tmp_path):
    """Four files of 300 bytes each under a limit of 1,000 bytes: the check (declared sizes) and the count agree."""
    path = tmp_path / "bot.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(4):
            archive.writestr(entry(f"f{i}"), bytes(300))
    with pytest.raises(LeagueError, match="unpacks to 1,200 bytes, more than 1,000 bytes"):
        unpack(path, tmp_path / "out", ArchiveLimits(unpacked=1000))
    assert unpack(path, tmp_path / "out", ArchiveLimits(unpacked=1200)) == tmp_path / "out"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["f0", "f1", "f2", "f3"]


def test_unpacking_keeps_the_executable_bit_and_the_folders(tmp_path):
    path = tmp_path / "bot.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(entry("bin/", stat.S_IFDIR | 0o755), "")
        archive.writestr(entry("bin/mybot", stat.S_IFREG | 0o755), "#!/bin/sh\n")
        archive.writestr(entry("data.txt"), "x")
    out = unpack(path, tmp_path / "out", LIMITS)
    assert (out / "bin" / "mybot").stat().st_mode & 0o111 and not (out / "data.txt").stat().st_mode & 0o111


def test_a_folder_and_the_same_folder_zipped_in_another_order_hash_alike(tmp_path):
    folder = tmp_path / "bot"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "bot.toml").write_text('entry = "pkg:Bot"\n')
    for order, name in ((sorted, "a.zip"), (lambda x: sorted(x, reverse=True), "b.zip")):
        with zipfile.ZipFile(tmp_path / name, "w", zipfile.ZIP_DEFLATED if name == "a.zip" else zipfile.ZIP_STORED) \
                as archive:
            for path in order(p for p in folder.rglob("*") if p.is_file()):
                archive.write(path, path.relative_to(folder).as_posix())
    hashes = {tree_hash(folder), tree_hash(unpack(tmp_path / "a.zip", tmp_path / "a", LIMITS)),
              tree_hash(unpack(tmp_path / "b.zip", tmp_path / "b", LIMITS))}
    assert len(hashes) == 1
    (tmp_path / "a" / "bot.toml").chmod(0o755)  # the executable bit is part of what a bot is
    assert tree_hash(tmp_path / "a") not in hashes
