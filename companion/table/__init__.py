"""The table: the host's page and its roster (``nights``), the phones (``phones``), host
codes (``hosting``), the room's screen (``screens``), the Wi-Fi code (``wifi_code``), live
push (``push``) and QR codes (``qr``)."""
