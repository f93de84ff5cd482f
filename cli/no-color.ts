// citty colours its help unless NO_COLOR is set; pipes and files get plain text.
if (!process.env.NO_COLOR && !process.stdout.isTTY) process.env.NO_COLOR = "1";
