"""The bruno application: command line, live session, footage review, announcements, reports."""
