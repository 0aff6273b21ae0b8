"""The dashboard: a local web page for a table being refereed.

    from bruno.dashboard import start_dashboard

    dashboard = start_dashboard(session)        # any `bruno.live.backend.DashboardBackend`
    print(dashboard.url)                        # http://127.0.0.1:PORT/
    ...
    dashboard.stop()

The page shows the camera view, the rulings as they come, whose turn it is, the active colour
and the scores, and has the manual controls for when the machine is wrong or blind (undo,
correct a card or who played it, name a wild's colour, STOP/GO, end the round) and the camera
calibration by clicks. The server is the standard library's, on a background thread.
"""

from bruno.dashboard.server import Dashboard, start_dashboard

__all__ = ["Dashboard", "start_dashboard"]
