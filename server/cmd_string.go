package server

var stringCommands = []command{}
