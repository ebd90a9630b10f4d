"""Developer tools of spvcoop that are not part of the installed package (the fuzzing driver)."""
